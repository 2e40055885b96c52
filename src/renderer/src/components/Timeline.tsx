import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef } from 'react';
import type { Message, Role } from '../../../shared/model';
import { excerpt, formatTime } from '../format';
import { ensureBaseline, ensureRange, select, toggleShowHidden, useStore } from '../store';
import { plural, shortHash } from '../store/describe';
import { pickMessage, useShownMessageId } from '../store/message';

const ROW_HEIGHT = 56;
const ROLE_ICON: Record<Role, string> = { user: 'U', assistant: 'A', tool: 'T', system: 'S' };

/** The conversation, virtualised: only the rows in view exist in the DOM, so 10,000 messages scroll smoothly. */
export function Timeline() {
  const total = useStore((s) => s.total);
  const messages = useStore((s) => s.messages);
  const checkpoints = useStore((s) => s.checkpoints);
  const selected = useStore((s) => s.selected);
  const showHidden = useStore((s) => s.showHidden);
  const sessionId = useStore((s) => s.sessionId);
  const focusRequest = useStore((s) => s.focusRequest);
  const readingId = useShownMessageId();
  const baselineFiles = useStore((s) =>
    s.baseline && s.baseline.hash === s.checkpoints[0]?.hash ? s.baseline.files : null,
  );
  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  /** A key moved the selection: focus its row as soon as the virtualiser has rendered it. */
  const focusPending = useRef(false);

  // Row index → checkpoint index, for clicks and aria-current.
  const checkpointAt = useMemo(() => new Map(checkpoints.map((c, i) => [c.index, i])), [checkpoints]);
  const selectedRow = checkpoints[selected]?.index ?? -1;

  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    // Fixed-height rows: nothing to measure, so fast scrolling never shifts under the user.
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (i) => messages[i]?.id ?? `row-${i}`,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  useEffect(() => {
    if (total > 0) void ensureRange(first - 50, last + 50);
  }, [first, last, total]);

  // Keep the selected checkpoint in view as the keys move it.
  useEffect(() => {
    if (selectedRow >= 0) virtualizer.scrollToIndex(selectedRow, { align: 'auto' });
  }, [selectedRow, virtualizer]);

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
    if (total > 0 && atBottom.current) virtualizer.scrollToIndex(total - 1, { align: 'end' });
  }, [total, virtualizer]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
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
      <div className="timeline-scroll" ref={scrollRef} onScroll={onScroll}>
        {total === 0 && sessionId === null && (
          <p className="empty-note">
            No sessions in this folder yet. Record one with <code>retrace message</code> and{' '}
            <code>retrace checkpoint</code>, or install the Claude Code hooks with{' '}
            <code>retrace install claude-code</code>.
          </p>
        )}
        <div
          role="list"
          aria-label="Timeline"
          className="timeline"
          ref={listRef}
          style={{ height: virtualizer.getTotalSize() }}
        >
          {items.map((item) => {
            const cpIndex = checkpointAt.get(item.index);
            return (
              <div
                key={item.key}
                role="listitem"
                data-index={item.index}
                aria-setsize={total}
                aria-posinset={item.index + 1}
                aria-current={cpIndex !== undefined && cpIndex === selected ? 'true' : undefined}
                className="row-wrap"
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
              >
                <Row
                  message={messages[item.index]}
                  checkpointIndex={cpIndex}
                  selected={cpIndex === selected}
                  reading={messages[item.index]?.id === readingId}
                  baselineFiles={cpIndex === 0 ? baselineFiles : undefined}
                />
              </div>
            );
          })}
        </div>
      </div>
    </aside>
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
