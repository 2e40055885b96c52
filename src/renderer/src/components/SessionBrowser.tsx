import { useEffect, useRef, type KeyboardEvent } from 'react';
import { useStore } from '../store';
import { plural } from '../store/describe';
import { formatWhen } from '../format';
import { closeBrowser, newestFirst, pickSession, toggleBrowser, useSessions } from '../store/sessions';
import { AgentBadge } from './AgentBadge';

const BUTTON_ID = 'sessions-button';
const LIST_ID = 'session-list';

/**
 * The header's "Sessions" button and the "Session list" it opens: every session of the folder, newest first,
 * with its agent, title, date and counts. ArrowUp/ArrowDown (Home/End) move within the list, Enter or a click
 * opens a session, Escape (or a click elsewhere) closes it and puts focus back on the button.
 */
export function SessionBrowser() {
  const sessions = useStore((s) => s.sessions);
  const sessionId = useStore((s) => s.sessionId);
  const open = useSessions((s) => s.browserOpen);
  const root = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const sorted = newestFirst(sessions);
  const current = sessions.find((s) => s.id === sessionId);

  useEffect(() => {
    if (!open) return;
    // Focus the open session's entry (else the newest), so Enter right away keeps what is shown.
    const items = buttons(list.current);
    (items.find((b) => b.dataset.session === sessionId) ?? items[0])?.focus();
    const onPointer = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) closeBrowser();
    };
    window.addEventListener('pointerdown', onPointer);
    return () => window.removeEventListener('pointerdown', onPointer);
    // Only when it opens: focus is the user's to move afterwards.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const items = buttons(list.current);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const go = (i: number) => items[Math.max(0, Math.min(items.length - 1, i))]?.focus();
    switch (e.key) {
      case 'ArrowDown':
        go(at + 1);
        break;
      case 'ArrowUp':
        go(at - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(items.length - 1);
        break;
      case 'Escape':
        closeAndFocus();
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  return (
    <div
      className="session-browser"
      ref={root}
      onBlur={(e) => {
        // Tab out of the list closes it, as a click elsewhere does.
        if (open && !root.current?.contains(e.relatedTarget as Node | null)) closeBrowser();
      }}
    >
      <button
        type="button"
        id={BUTTON_ID}
        aria-expanded={open}
        aria-controls={open ? LIST_ID : undefined}
        aria-describedby="current-session"
        onClick={toggleBrowser}
        disabled={sessions.length === 0}
      >
        Sessions
      </button>
      <span id="current-session" className="current-session" title={current?.title}>
        {current ? (
          <>
            <AgentBadge agent={current.agent} /> {current.title || current.id}
          </>
        ) : (
          'No sessions'
        )}
      </span>
      {open && (
        <div className="session-popup" data-popup>
          <ul id={LIST_ID} ref={list} role="list" aria-label="Session list" onKeyDown={onKeyDown}>
            {sorted.map((s) => (
              <li key={s.id} aria-current={s.id === sessionId ? 'true' : undefined}>
                <button
                  type="button"
                  className="session-item"
                  data-session={s.id}
                  // One stop for Tab (the open session's entry); the arrows move within the list.
                  tabIndex={s.id === (current?.id ?? sorted[0]?.id) ? 0 : -1}
                  onClick={() => {
                    void pickSession(s.id);
                    focusButton();
                  }}
                >
                  <span className="session-line">
                    <AgentBadge agent={s.agent} />
                    <span className="session-title">{s.title || s.id}</span>
                  </span>
                  <span className="session-meta">
                    <time dateTime={s.updatedAt}>{formatWhen(s.updatedAt)}</time> · {plural(s.messages, 'message')} ·{' '}
                    {plural(s.checkpoints, 'checkpoint')}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function buttons(list: HTMLUListElement | null): HTMLButtonElement[] {
  return list ? [...list.querySelectorAll<HTMLButtonElement>('button.session-item')] : [];
}

function focusButton(): void {
  document.getElementById(BUTTON_ID)?.focus();
}

function closeAndFocus(): void {
  closeBrowser();
  focusButton();
}
