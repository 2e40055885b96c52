import { useRef, useState } from 'react';
import type { SessionStorage, StorageBudget } from '../../../shared/model';
import { formatBytes } from '../format';
import { STORAGE_BUTTON_ID } from './StorageButton';
import {
  askForget,
  cancelForget,
  closeStorage,
  collectNow,
  confirmForget,
  saveBudget,
  useStorage,
} from '../store/storage';
import { usePanelFocus } from './usePanelFocus';

const MIB = 1024 * 1024;

/**
 * Storage per session (oldest activity first: the order the budget removes them in), the budget, and Forget
 * with a confirmation. Kept sessions (labelled, being recorded) say why; forgetting one of them is forced.
 */
export function StoragePanel() {
  const open = useStorage((s) => s.open);
  const report = useStorage((s) => s.report);
  const notice = useStorage((s) => s.notice);
  const heading = useRef<HTMLHeadingElement>(null);

  usePanelFocus(open, heading, close);

  if (!open) return null;
  return (
    <section id="storage-panel" className="storage-panel" aria-labelledby="storage-heading">
      <h2 id="storage-heading" ref={heading} tabIndex={-1}>
        Storage
      </h2>
      {report && (
        <>
          <p className="storage-total">
            History {formatBytes(report.storageBytes)} · archived transcripts {formatBytes(report.archiveBytes)}
          </p>
          <BudgetForm key={JSON.stringify(report.budget)} budget={report.budget} />
          {report.sessions.length === 0 ? (
            <p>No sessions in this folder.</p>
          ) : (
            <ul aria-label="Storage per session">
              {report.sessions.map((s) => (
                <SessionRow key={s.id} session={s} />
              ))}
            </ul>
          )}
        </>
      )}
      {notice && (
        <p role="status" className="storage-notice">
          {notice}
        </p>
      )}
      <button type="button" className="quiet" onClick={close}>
        Close
      </button>
    </section>
  );
}

function SessionRow({ session: s }: { session: SessionStorage }) {
  const confirming = useStorage((st) => st.confirming === s.id);
  const busy = useStorage((st) => st.busy);
  const name = s.title || s.id;
  const descId = `storage-${s.id}`;
  return (
    <li className="storage-row">
      <span id={descId} className="storage-what">
        <span className="storage-name">{name}</span> · {s.agent} · {new Date(s.updatedAt).toLocaleString()} ·{' '}
        <span className="storage-size">{formatBytes(s.bytes)}</span>
        {s.kept && <span className="storage-kept"> · kept: {s.kept}</span>}
      </span>
      {confirming ? (
        <span className="storage-confirm" role="group" aria-label={`Confirm forgetting ${name}`}>
          <span>
            Forget {name}? Its messages and the checkpoints only it holds are removed for good
            {s.kept ? ` (it is ${s.kept})` : ''}.
          </span>
          <button type="button" className="danger" onClick={() => void confirmForget()} disabled={busy}>
            Forget for good
          </button>
          <button type="button" onClick={cancelForget} disabled={busy}>
            Cancel
          </button>
        </span>
      ) : (
        <button
          type="button"
          aria-label={`Forget ${name}`}
          aria-describedby={descId}
          onClick={() => askForget(s.id)}
          disabled={busy}
        >
          Forget
        </button>
      )}
    </li>
  );
}

/** Maximum storage in MiB and days to keep; empty = no limit. */
function BudgetForm({ budget }: { budget: StorageBudget }) {
  const busy = useStorage((s) => s.busy);
  const [maxMib, setMaxMib] = useState(budget.maxBytes === null ? '' : String(Math.round(budget.maxBytes / MIB)));
  const [days, setDays] = useState(budget.keepDays === null ? '' : String(budget.keepDays));
  const valid = /^\d*$/.test(maxMib.trim()) && /^\d*$/.test(days.trim());
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    void saveBudget({
      maxBytes: maxMib.trim() === '' ? null : Number(maxMib) * MIB,
      keepDays: days.trim() === '' ? null : Number(days),
    });
  };
  return (
    <form className="storage-budget" onSubmit={submit} aria-label="Storage budget">
      <label>
        Maximum storage (MiB)
        <input inputMode="numeric" value={maxMib} placeholder="no limit" onChange={(e) => setMaxMib(e.target.value)} />
      </label>
      <label>
        Keep days
        <input inputMode="numeric" value={days} placeholder="no limit" onChange={(e) => setDays(e.target.value)} />
      </label>
      <button type="submit" disabled={busy || !valid}>
        Save budget
      </button>
      <button type="button" onClick={() => void collectNow()} disabled={busy}>
        Collect now
      </button>
    </form>
  );
}

function close(): void {
  closeStorage();
  document.getElementById(STORAGE_BUTTON_ID)?.focus();
}
