import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useMemo, useRef, useState, type RefObject, type UIEvent } from 'react';
import type { Message, Role } from '../../../shared/model';
import { excerpt, formatTime } from '../format';
import { ensureBaseline, ensureRange, select, toggleShowHidden, useStore } from '../store';
import { plural, shortHash } from '../store/describe';
import { MovedHistories } from './MovedHistories';
import { PulledNote } from './PulledNote';
import { useSearch } from '../store/search';
import { SearchBar } from './SearchBar';
import { LabelAction, LabelBadge } from './TimelineLabel';
import { pickMessage, useShownMessageId } from '../store/message';

const ROW_HEIGHT = 56;
const ROLE_ICON: Record<Role, string> = { user: 'U', assistant: 'A', tool: 'T', system: 'S' };

/** The conversation, virtualised: only the rows in view exist in the DOM, so 10,000 messages scroll smoothly. */
export function Timeline() {
  const total = useStore((s) => s.total);
  const showHidden = useStore((s) => s.showHidden);
  const sessionId = useStore((s) => s.sessionId);
  const selectedMessage = useStore((s) => {
    const row = s.checkpoints[s.selected]?.index;
    return row === undefined ? undefined : s.messages[row];
  });
  const selectedRow = useStore((s) => s.checkpoints[s.selected]?.index ?? -1);
  const rows = useSearch((s) => s.rows);
  const selectedPos = rows ? rows.indexOf(selectedRow) : selectedRow;
  // State, not a ref: the rows mount once the scroll box exists (a render later, before the paint), so that their
  // first render knows its size and opens where it should.
  const [scrollBox, setScrollBox] = useState<HTMLDivElement | null>(null);
  const atBottom = useRef(true);

  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  return (
    <aside className="timeline-pane">
      <div className="pane-title">
        <h2>Timeline</h2>
        <span className="count">{plural(total, 'message')}</span>
        <button type="button" aria-pressed={showHidden} className="toggle" onClick={toggleShowHidden}>
          Show rewound
        </button>
      </div>
      <PulledNote />
      <SearchBar />
      <div className="timeline-scroll" ref={setScrollBox} onScroll={onScroll}>
        {total === 0 && sessionId === null && (
          <p className="empty-note">
            No sessions in this folder yet. Record one with <code>retrace message</code> and{' '}
            <code>retrace checkpoint</code>, or install the Claude Code hooks with{' '}
            <code>retrace install claude-code</code>. Moved or renamed this folder? <code>retrace move OLD_PATH</code>{' '}
            run here brings its history along.
          </p>
        )}
        {total === 0 && sessionId === null && <MovedHistories />}
        {total > 0 && scrollBox ? (
          // A session's list is laid out afresh when it first has rows, already scrolled to its selected row.
          <TimelineRows key={sessionId} scrollBox={scrollBox} atBottom={atBottom} />
        ) : (
          <div role="list" aria-label="Timeline" className="timeline" />
        )}
        {selectedMessage?.hash && selectedPos >= 0 && (
          // The selected checkpoint's "Label" action, laid over its row but outside it: a row is one button.
          <div
            className="label-slot"
            style={{ transform: `translateY(${selectedPos * ROW_HEIGHT}px)`, height: ROW_HEIGHT }}
          >
            <LabelAction message={selectedMessage} />
          </div>
        )}
      </div>
    </aside>
  );
}

/**
 * Where a list first shows: its selected row in the middle of the view (or the end of the list, when that row is
 * in its last screen), so its first frame is already the one the user opened it for — no frame of the list's
 * top, and no page of rows nobody looks at loaded for it.
 */
function openingOffset(selectedPos: number, count: number, viewport: number): number {
  const max = Math.max(0, count * ROW_HEIGHT - viewport);
  if (selectedPos < 0) return max;
  return Math.max(0, Math.min(max, selectedPos * ROW_HEIGHT - (viewport - ROW_HEIGHT) / 2));
}

/** The rows of one session's list (remounted per session): the virtualiser and what keeps the selection in view. */
function TimelineRows(props: { scrollBox: HTMLDivElement; atBottom: RefObject<boolean> }) {
  const { scrollBox, atBottom } = props;
  const total = useStore((s) => s.total);
  const messages = useStore((s) => s.messages);
  const checkpoints = useStore((s) => s.checkpoints);
  const selected = useStore((s) => s.selected);
  const focusRequest = useStore((s) => s.focusRequest);
  // Search and filters (store/search.ts): the rows they keep, null for all; the row the last match move reached.
  const rows = useSearch((s) => s.rows);
  const searching = useSearch((s) => s.query.trim() !== '');
  const matchRow = useSearch((s) => s.currentRow);
  const count = rows ? rows.length : total;
  const rowAt = (pos: number) => (rows ? (rows[pos] ?? -1) : pos);
  const posOf = useMemo(() => (rows ? new Map(rows.map((r, p) => [r, p])) : null), [rows]);
  const readingId = useShownMessageId();
  const baselineFiles = useStore((s) =>
    s.baseline && s.baseline.hash === s.checkpoints[0]?.hash ? s.baseline.files : null,
  );
  const listRef = useRef<HTMLDivElement>(null);
  /** A key moved the selection: focus its row as soon as the virtualiser has rendered it. */
  const focusPending = useRef(false);

  // Row index → checkpoint index, for clicks and aria-current.
  const checkpointAt = useMemo(() => new Map(checkpoints.map((c, i) => [c.index, i])), [checkpoints]);
  const selectedRow = checkpoints[selected]?.index ?? -1;
  const selectedPos = posOf ? (posOf.get(selectedRow) ?? -1) : selectedRow;
  const matchPos = matchRow === null ? -1 : posOf ? (posOf.get(matchRow) ?? -1) : matchRow;

  // Kept while the rows and their loaded messages stay: the virtualiser recomputes every row's place (all 10,000
  // of a long session) whenever this function is a new one, which an inline arrow made on every render.
  const getItemKey = useCallback(
    (i: number) => {
      const row = rows ? (rows[i] ?? -1) : i;
      return messages[row]?.id ?? row;
    },
    [messages, rows],
  );
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollBox,
    // Fixed-height rows: nothing to measure, so fast scrolling never shifts under the user.
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey,
    // The scroll box is laid out (it outlives this list): its size, and where the list opens.
    initialRect: { width: scrollBox.clientWidth, height: scrollBox.clientHeight },
    initialOffset: () => {
      const viewport = scrollBox.clientHeight;
      const offset = openingOffset(selectedPos, count, viewport);
      atBottom.current = offset >= count * ROW_HEIGHT - viewport - 80;
      return offset;
    },
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  useEffect(() => {
    if (count > 0) void ensureRange(rowAt(Math.max(0, first - 50)), rowAt(Math.min(count - 1, last + 50)));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- rowAt reads `rows`, listed
  }, [first, last, count, rows]);

  // Keep the selected checkpoint in view as the keys move it.
  useEffect(() => {
    if (selectedPos >= 0) virtualizer.scrollToIndex(selectedPos, { align: 'auto' });
  }, [selectedPos, virtualizer]);
  // A match move may land on a row without a checkpoint: keep that row in view too.
  useEffect(() => {
    if (matchPos >= 0) virtualizer.scrollToIndex(matchPos, { align: 'auto' });
  }, [matchPos, virtualizer]);

  useEffect(() => {
    if (focusRequest > 0) focusPending.current = true;
  }, [focusRequest]);
  // After every render: the row may only now exist (scrolled into view by the effect above).
  useEffect(() => {
    if (!focusPending.current || selectedRow < 0) return;
    const row = listRef.current?.querySelector<HTMLElement>(`[data-index="${selectedRow}"] button.row`);
    if (!row) return;
    focusPending.current = false;
    if (document.activeElement !== row) row.focus({ preventScroll: true });
  });

  // Follow new messages live while the list is scrolled to its end.
  useEffect(() => {
    if (count > 0 && atBottom.current && !rows) virtualizer.scrollToIndex(count - 1, { align: 'end' });
  }, [count, rows, virtualizer, atBottom]);

  return (
    <div
      role="list"
      aria-label="Timeline"
      className="timeline"
      ref={listRef}
      style={{ height: virtualizer.getTotalSize() }}
    >
      {items.map((item) => {
        const row = rowAt(item.index);
        const cpIndex = checkpointAt.get(row);
        const message = messages[row];
        return (
          <div
            key={item.key}
            role="listitem"
            data-index={row}
            aria-setsize={count}
            aria-posinset={item.index + 1}
            aria-current={cpIndex !== undefined && cpIndex === selected ? 'true' : undefined}
            className={`row-wrap${searching ? ' match' : ''}${row === matchRow ? ' match-current' : ''}`}
            style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
          >
            <Row
              message={message}
              checkpointIndex={cpIndex}
              selected={cpIndex === selected}
              reading={message?.id === readingId}
              baselineFiles={cpIndex === 0 ? baselineFiles : undefined}
            />
          </div>
        );
      })}
    </div>
  );
}

/** The first checkpoint's size, once known; the row asks for it when it first shows. */
function Baseline({ files }: { files: number | null | undefined }) {
  useEffect(() => {
    if (files === null) void ensureBaseline();
  }, [files]);
  return (
    <span className="baseline" title="The session's first checkpoint: the files as they were when it began">
      {files === null || files === undefined ? 'Baseline' : `Baseline: ${plural(files, 'file')}`}
    </span>
  );
}

const Row = memo(function Row(props: {
  message: Message | undefined;
  checkpointIndex: number | undefined;
  selected: boolean;
  /** Shown in the Message region. */
  reading: boolean;
  /** Only for the session's first checkpoint: its tree's file count (null while unknown). */
  baselineFiles?: number | null;
}) {
  const { message: m, checkpointIndex, selected, reading, baselineFiles } = props;
  if (!m) return <div className="row placeholder">Loading…</div>;
  const body = (
    <>
      <span className={`role-icon role-${m.role}`} role="img" aria-label={m.role}>
        {ROLE_ICON[m.role]}
      </span>
      <span className="row-main">
        <span className="excerpt">{excerpt(m.text) || <em>(no text)</em>}</span>
        {!m.hash && m.meta?.checkpointUnavailable && (
          <span className="cp-meta">
            <span className="unavailable-badge" title="The source had a checkpoint here that could not be brought in">
              checkpoint unavailable
            </span>
          </span>
        )}
        {m.hash && (
          <span className="cp-meta">
            <code className="hash">{shortHash(m.hash)}</code>
            <LabelBadge label={m.label} />
            {checkpointIndex === 0 ? (
              // Nothing before it in this session: its stats (against whatever the shadow repository held
              // before) would read as if the first prompt created the project.
              <Baseline files={baselineFiles} />
            ) : (
              m.stats && (
                <>
                  <span>{plural(m.stats.files, 'file')}</span>
                  <span className="ins">+{m.stats.insertions}</span>
                  <span className="del">−{m.stats.deletions}</span>
                </>
              )
            )}
          </span>
        )}
      </span>
      <span className="row-side">
        <time dateTime={m.ts}>{formatTime(m.ts)}</time>
        {m.hidden && <span className="rewound-badge">rewound</span>}
      </span>
    </>
  );
  const cls = `row role-${m.role}${m.hidden ? ' rewound' : ''}${m.hash ? ' checkpoint' : ''}${selected ? ' selected' : ''}${reading ? ' reading' : ''}`;
  // Any row can be read in the Message region; keys reach the others through its Previous/Next message.
  if (checkpointIndex === undefined)
    return (
      <button type="button" className={cls} onClick={() => pickMessage(m.id)} tabIndex={-1}>
        {body}
      </button>
    );
  const onClick = () => {
    select(checkpointIndex);
    pickMessage(m.id);
  };
  return (
    <button type="button" className={cls} onClick={onClick} tabIndex={selected ? 0 : -1}>
      {body}
    </button>
  );
});
