import { useEffect, useRef } from 'react';
import { useStore } from '../store';
import {
  clearSearch,
  moveMatch,
  narrowing,
  openHit,
  setQuery,
  toggleAllSessions,
  toggleChangesOnly,
  togglePromptsOnly,
  useSearch,
} from '../store/search';

/**
 * The timeline's search box and filters (UI.md): "Search" narrows the list to messages whose text, label or
 * changed file paths match; Enter / Shift+Enter (or the buttons) move to the next / previous match; Esc clears.
 */
export function SearchBar() {
  const query = useSearch((s) => s.query);
  const allSessions = useSearch((s) => s.allSessions);
  const promptsOnly = useSearch((s) => s.promptsOnly);
  const changesOnly = useSearch((s) => s.changesOnly);
  const rows = useSearch((s) => s.rows);
  const total = useSearch((s) => s.total);
  const focusRequest = useSearch((s) => s.focusRequest);
  const active = useSearch((s) => narrowing(s));
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusRequest > 0) input.current?.focus();
  }, [focusRequest]);

  const searching = query.trim() !== '';
  const count = allSessions && searching ? total : (rows?.length ?? 0);
  return (
    <div className="search-bar">
      <div className="search-row">
        <input
          ref={input}
          type="search"
          aria-label="Search"
          placeholder="Search text, labels, file paths  (/)"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void moveMatch(e.shiftKey ? -1 : 1);
            } else if (e.key === 'Escape' && query !== '') {
              e.preventDefault();
              clearSearch();
            }
          }}
        />
        <button
          type="button"
          aria-label="Previous match"
          title="Previous match (Shift+Enter)"
          onClick={() => void moveMatch(-1)}
          disabled={!active}
        >
          ↑
        </button>
        <button
          type="button"
          aria-label="Next match"
          title="Next match (Enter)"
          onClick={() => void moveMatch(1)}
          disabled={!active}
        >
          ↓
        </button>
        <span className="match-count" aria-live="polite">
          {active ? `${count} ${count === 1 ? 'match' : 'matches'}` : ''}
        </span>
      </div>
      <div className="search-filters">
        <label>
          <input type="checkbox" checked={allSessions} onChange={toggleAllSessions} /> All sessions
        </label>
        <label>
          <input type="checkbox" checked={promptsOnly} onChange={togglePromptsOnly} /> Prompts only
        </label>
        <label>
          <input type="checkbox" checked={changesOnly} onChange={toggleChangesOnly} /> Changes only
        </label>
      </div>
      {allSessions && searching && <OtherSessionHits />}
    </div>
  );
}

/** With "All sessions": what the other sessions hold; picking one opens that session at that message. */
function OtherSessionHits() {
  const hits = useSearch((s) => s.hits);
  const sessionId = useStore((s) => s.sessionId);
  const sessions = useStore((s) => s.sessions);
  const others = hits.filter((h) => h.session !== sessionId);
  if (others.length === 0) return null;
  const title = (id: string) => sessions.find((s) => s.id === id)?.title || id;
  return (
    <ul className="other-hits" aria-label="Other sessions">
      {others.slice(0, 50).map((h) => (
        <li key={`${h.session}/${h.message}`}>
          <button type="button" onClick={() => void openHit(h)}>
            <span className="other-session">{title(h.session)}</span>
            <span className="other-snippet">
              {h.label ? `«${h.label}» ` : ''}
              {h.snippet || h.paths.join(', ')}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
