import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { FileChange, Hash } from '../../../shared/model';
import { buildRows, fileKey, type FolderRowItem, type RowItem } from '../fileTree';
import { restore, selectFile, useStore } from '../store';
import { plural, shortHash } from '../store/describe';
import { copyText, openInEditor, setFilter, toggleFolder, toggleTree, useFiles } from '../store/files';

const ROW_HEIGHT = 28;
const INDENT = 14;
const STATUS_MARK: Record<FileChange['status'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  'type-changed': 'T',
};

const shownPath = (f: FileChange) => (f.oldPath ? `${f.oldPath} → ${f.path}` : f.path);

/**
 * The files of the comparison, filtered, flat or as a folder tree, virtualised either way (a 3,000-file step
 * renders a screenful of rows, not 6,000 buttons: the tree is flattened into the rows that show), with one tab
 * stop: the current row. ↑/↓, Home/End and PageUp/PageDown move within the list and open a file; Enter or Space
 * on a folder opens or closes it. (←/→ stay the checkpoint keys.)
 */
export function ChangedFiles() {
  const summary = useStore((s) => s.summary);
  const selectedPath = useStore((s) => s.selectedPath);
  const busy = useStore((s) => s.busy);
  const desktop = useStore((s) => s.host === 'electron');
  const hash = useStore((s) => s.checkpoints[s.selected]?.hash ?? null);
  const baseline = useStore((s) => s.compare === 'step' && s.selected === 0 && s.summary?.from === null);
  const stepBefore = useStore((s) => (s.compare === 'since' ? null : (s.summary?.from ?? null)));
  const filter = useFiles((s) => s.filter);
  const tree = useFiles((s) => s.tree);
  const collapsed = useFiles((s) => s.collapsed);
  const files = useMemo(() => summary?.files ?? [], [summary]);
  const rows = useMemo(() => buildRows(files, { tree, collapsed, filter }), [files, tree, collapsed, filter]);
  const shownFiles = useMemo(() => rows.filter((r) => r.kind === 'file').length, [rows]);
  /**
   * The current row when it is not the selected file's (a folder, reached by keys or a click); it lapses as soon
   * as another file is picked (by a click, a key, another checkpoint).
   */
  const [folderCursor, setFolderCursor] = useState<{ key: string; at: string | null } | null>(null);
  const cursor = folderCursor && folderCursor.at === selectedPath ? folderCursor.key : null;
  const setCursor = (key: string | null) => setFolderCursor(key === null ? null : { key, at: selectedPath });
  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const focusPending = useRef(false);

  // Kept while the rows stay (a new function makes the virtualiser recompute every row's place: 3,000 of them).
  const getItemKey = useCallback((i: number) => rows[i]?.key ?? i, [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey,
  });
  const selectedKey = selectedPath ? fileKey(selectedPath) : null;
  const find = (key: string | null) => (key === null ? -1 : rows.findIndex((r) => r.key === key));
  const active = Math.max(0, find(cursor) >= 0 ? find(cursor) : find(selectedKey));

  // A new comparison opens scrolled to its selected file (the first, usually).
  useEffect(() => {
    if (rows.length > 0) virtualizer.scrollToIndex(active, { align: 'auto' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the list itself changes
  }, [summary]);

  // A key moved within the list: focus the new row once the virtualiser has rendered it.
  useEffect(() => {
    if (!focusPending.current) return;
    const pick = listRef.current?.querySelector<HTMLElement>(`[data-index="${active}"] .file-pick`);
    if (!pick) return;
    focusPending.current = false;
    pick.focus({ preventScroll: true });
  });

  const moveTo = (next: number) => {
    const row = rows[next]!;
    focusPending.current = true;
    virtualizer.scrollToIndex(next, { align: 'auto' });
    if (row.kind === 'folder') setCursor(row.key);
    else if (row.file.path !== selectedPath) {
      setCursor(null);
      void selectFile(row.file.path);
    } else setCursor(null);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey || rows.length === 0) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT) / ROW_HEIGHT) - 1);
    const to: Record<string, number> = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      Home: 0,
      End: rows.length - 1,
      PageDown: active + page,
      PageUp: active - page,
    };
    if (!(e.key in to)) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(rows.length - 1, to[e.key]!));
    if (next !== active) moveTo(next);
    else listRef.current?.querySelector<HTMLElement>(`[data-index="${next}"] .file-pick`)?.focus();
  };

  /** From the filter box, ↓ goes into the list (and Escape clears the filter). */
  const onFilterKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Escape' && filter) {
      e.preventDefault();
      setFilter('');
    } else if (e.key === 'ArrowDown' && rows.length > 0) {
      e.preventDefault();
      focusPending.current = true;
      virtualizer.scrollToIndex(active, { align: 'auto' });
      listRef.current?.querySelector<HTMLElement>(`[data-index="${active}"] .file-pick`)?.focus();
    }
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div className="files-pane">
      <div className="files-head">
        <h2>
          Changed files{' '}
          <span className="count">
            {summary ? (filter.trim() ? `${shownFiles} of ${files.length}` : files.length) : ''}
          </span>
        </h2>
        <input
          type="search"
          className="files-filter"
          aria-label="Filter files"
          placeholder="Filter files"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          onKeyDown={onFilterKey}
        />
        <button type="button" className="toggle" aria-pressed={tree} onClick={toggleTree}>
          Tree
        </button>
        <button
          type="button"
          className="copy-hash"
          disabled={!hash}
          onClick={() => hash && void copyText(hash, `hash ${shortHash(hash)}`)}
          title="Copy the selected checkpoint's full hash"
        >
          Copy hash
        </button>
      </div>
      <CopyConfirmation />
      {baseline && summary && (
        <p className="baseline-note">
          Baseline: {plural(files.length, 'file')} — the session&apos;s first checkpoint, as the files were when it
          began.
        </p>
      )}
      <div className="files-scroll" ref={scrollRef}>
        <div
          role="list"
          aria-label="Changed files"
          className={`files${tree ? ' tree' : ''}`}
          ref={listRef}
          onKeyDown={onKeyDown}
          style={{ height: virtualizer.getTotalSize() }}
        >
          {items.map((item) => {
            const row = rows[item.index]!;
            const common = {
              index: item.index,
              setSize: rows.length,
              start: item.start,
              tabbable: item.index === active,
              tree,
            };
            return row.kind === 'folder' ? (
              <FolderRow
                key={item.key}
                {...common}
                row={row}
                onToggle={() => {
                  setCursor(row.key);
                  toggleFolder(row.path);
                }}
              />
            ) : (
              <FileRow
                key={item.key}
                {...common}
                row={row}
                selected={row.file.path === selectedPath}
                busy={busy}
                desktop={desktop}
                stepBefore={stepBefore}
              />
            );
          })}
        </div>
      </div>
      {summary && files.length === 0 && <p className="empty-note">No files changed.</p>}
      {summary && files.length > 0 && shownFiles === 0 && (
        <p className="empty-note">No changed file matches “{filter.trim()}”.</p>
      )}
    </div>
  );
}

/** "Copied path src/a.ts": said politely, seen for a few seconds. */
function CopyConfirmation() {
  const copied = useFiles((s) => s.copied);
  return (
    <div className={`copy-note${copied && !copied.ok ? ' failed' : ''}`} aria-live="polite">
      {copied?.text ?? ''}
    </div>
  );
}

interface RowPlace {
  index: number;
  setSize: number;
  start: number;
  tabbable: boolean;
  tree: boolean;
}

function rowProps(p: RowPlace, row: RowItem, className: string) {
  return {
    role: 'listitem',
    'data-index': p.index,
    'aria-setsize': p.setSize,
    'aria-posinset': p.index + 1,
    ...(p.tree ? { 'aria-level': row.depth + 1 } : {}),
    className,
    style: { transform: `translateY(${p.start}px)`, height: ROW_HEIGHT },
  };
}

function FolderRow(props: RowPlace & { row: FolderRowItem; onToggle: () => void }) {
  const { row } = props;
  return (
    <div {...rowProps(props, row, 'file-row folder-row')}>
      <button
        type="button"
        className="file-pick folder-pick"
        tabIndex={props.tabbable ? 0 : -1}
        aria-expanded={row.expanded}
        aria-label={`Folder ${row.path}, ${plural(row.files, 'file')}`}
        onClick={props.onToggle}
        style={{ paddingLeft: 6 + row.depth * INDENT }}
      >
        <span className="twisty" aria-hidden="true">
          {row.expanded ? '▾' : '▸'}
        </span>
        <span className="path">{row.label}/</span>
        <span className="status-word">{plural(row.files, 'file')}</span>
      </button>
    </div>
  );
}

function FileRow(
  props: RowPlace & {
    row: Extract<RowItem, { kind: 'file' }>;
    selected: boolean;
    busy: boolean;
    /** The desktop app: files can open in their default application. */
    desktop: boolean;
    /** The comparison's older side, where a file it deletes still exists (null for "Since then"). */
    stepBefore: Hash | null;
  },
) {
  const { row, selected, tabbable } = props;
  const f = row.file;
  const tab = tabbable ? 0 : -1;
  const counts = f.binary ? 'binary' : `+${f.insertions} −${f.deletions}`;
  // A file this step deleted comes back from the step's "before" side; anything else from the checkpoint.
  const target = f.status === 'deleted' && props.stepBefore ? props.stepBefore : undefined;
  const paths = f.oldPath ? [f.oldPath, f.path] : [f.path];
  const label = props.tree ? row.label : shownPath(f);
  return (
    <div
      {...rowProps(props, row, `file-row${selected ? ' selected' : ''}`)}
      aria-current={selected ? 'true' : undefined}
    >
      <button
        type="button"
        className="file-pick"
        tabIndex={tab}
        onClick={() => void selectFile(f.path)}
        aria-label={`${shownPath(f)} ${f.status} ${counts}`}
        title={shownPath(f)}
        style={props.tree ? { paddingLeft: 6 + row.depth * INDENT + 14 } : undefined}
      >
        <span className={`status status-${f.status}`} aria-hidden="true">
          {STATUS_MARK[f.status]}
        </span>
        <span className="path">{label}</span>
        <span className="status-word">{f.status}</span>
        {f.binary ? (
          <span className="binary">binary</span>
        ) : (
          <>
            <span className="ins">+{f.insertions}</span>
            <span className="del">−{f.deletions}</span>
          </>
        )}
      </button>
      <span className="row-actions">
        <button
          type="button"
          className="row-action"
          tabIndex={tab}
          onClick={() => void copyText(f.path, `path ${f.path}`)}
          aria-label={`Copy path ${f.path}`}
        >
          Copy path
        </button>
        {props.desktop && (
          <button
            type="button"
            className="row-action"
            tabIndex={tab}
            onClick={() => void openInEditor(f.path)}
            aria-label={`Open in editor ${f.path}`}
            title={`Open ${f.path} (as it is now) in its default application`}
          >
            Open in editor
          </button>
        )}
      </span>
      <button
        type="button"
        className="restore-file"
        tabIndex={tab}
        onClick={() => void restore('code', paths, target ? { target } : {})}
        disabled={props.busy}
        aria-label={`Restore file ${f.path}`}
        title={target ? `Bring back ${f.path} as it was before this step` : `Restore ${f.path} to this checkpoint`}
      >
        Restore file
      </button>
    </div>
  );
}
