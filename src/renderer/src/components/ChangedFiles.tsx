import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent } from 'react';
import type { FileChange, Hash } from '../../../shared/model';
import { restore, selectFile, useStore } from '../store';
import { plural } from '../store/describe';

const ROW_HEIGHT = 28;
const STATUS_MARK: Record<FileChange['status'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  'type-changed': 'T',
};

const shownPath = (f: FileChange) => (f.oldPath ? `${f.oldPath} → ${f.path}` : f.path);

/**
 * The files of the comparison, virtualised (a 3,000-file step renders a screenful of rows, not 6,000
 * buttons) with one tab stop: the selected file's row; ↑/↓, Home/End and PageUp/PageDown move within the list
 * and open the file. (←/→ stay the checkpoint keys.)
 */
export function ChangedFiles() {
  const summary = useStore((s) => s.summary);
  const selectedPath = useStore((s) => s.selectedPath);
  const busy = useStore((s) => s.busy);
  const baseline = useStore((s) => s.compare === 'step' && s.selected === 0 && s.summary?.from === null);
  const stepBefore = useStore((s) => (s.compare === 'since' ? null : (s.summary?.from ?? null)));
  const files = summary?.files ?? [];
  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const focusPending = useRef(false);

  const virtualizer = useVirtualizer({
    count: files.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    getItemKey: (i) => files[i]?.path ?? i,
  });
  const active = Math.max(
    0,
    files.findIndex((f) => f.path === selectedPath),
  );

  // A new comparison opens scrolled to its selected file (the first, usually).
  useEffect(() => {
    if (summary && summary.files.length > 0) virtualizer.scrollToIndex(active, { align: 'auto' });
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

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey || files.length === 0) return;
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? ROW_HEIGHT) / ROW_HEIGHT) - 1);
    const to: Record<string, number> = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      Home: 0,
      End: files.length - 1,
      PageDown: active + page,
      PageUp: active - page,
    };
    if (!(e.key in to)) return;
    e.preventDefault();
    const next = Math.max(0, Math.min(files.length - 1, to[e.key]!));
    focusPending.current = true;
    virtualizer.scrollToIndex(next, { align: 'auto' });
    if (next !== active) void selectFile(files[next]!.path);
    else listRef.current?.querySelector<HTMLElement>(`[data-index="${next}"] .file-pick`)?.focus();
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div className="files-pane">
      <h2>
        Changed files <span className="count">{summary ? files.length : ''}</span>
      </h2>
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
          className="files"
          ref={listRef}
          onKeyDown={onKeyDown}
          style={{ height: virtualizer.getTotalSize() }}
        >
          {items.map((item) => {
            const f = files[item.index]!;
            return (
              <FileRow
                key={item.key}
                file={f}
                index={item.index}
                setSize={files.length}
                start={item.start}
                selected={f.path === selectedPath}
                tabbable={item.index === active}
                busy={busy}
                stepBefore={stepBefore}
              />
            );
          })}
        </div>
      </div>
      {summary && files.length === 0 && <p className="empty-note">No files changed.</p>}
    </div>
  );
}

function FileRow(props: {
  file: FileChange;
  index: number;
  setSize: number;
  start: number;
  selected: boolean;
  tabbable: boolean;
  busy: boolean;
  /** The comparison's older side, where a file it deletes still exists (null for "Since then"). */
  stepBefore: Hash | null;
}) {
  const { file: f, selected, tabbable } = props;
  const counts = f.binary ? 'binary' : `+${f.insertions} −${f.deletions}`;
  // A file this step deleted comes back from the step's "before" side; anything else from the checkpoint.
  const target = f.status === 'deleted' && props.stepBefore ? props.stepBefore : undefined;
  const paths = f.oldPath ? [f.oldPath, f.path] : [f.path];
  return (
    <div
      role="listitem"
      data-index={props.index}
      aria-setsize={props.setSize}
      aria-posinset={props.index + 1}
      aria-current={selected ? 'true' : undefined}
      className={`file-row${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${props.start}px)`, height: ROW_HEIGHT }}
    >
      <button
        type="button"
        className="file-pick"
        tabIndex={tabbable ? 0 : -1}
        onClick={() => void selectFile(f.path)}
        aria-label={`${shownPath(f)} ${f.status} ${counts}`}
        title={shownPath(f)}
      >
        <span className={`status status-${f.status}`} aria-hidden="true">
          {STATUS_MARK[f.status]}
        </span>
        <span className="path">{shownPath(f)}</span>
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
      <button
        type="button"
        className="restore-file"
        tabIndex={tabbable ? 0 : -1}
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
