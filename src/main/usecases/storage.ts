/**
 * Keeping history within a budget (issue 14 item 5), for the CLI (`gc`, `forget`, `sessions`) and the service
 * (the app's Storage dialog) alike: writers under the workspace's writer lock, the report as a reader.
 */
import type { GcResult, SessionSummary, StorageBudget, StorageReport } from '../../shared/model';
import { checkBudget, readBudget, saveBudget } from '../engine/storage/budget';
import { forgetLocked, gcLocked } from '../engine/storage/collect';
import { sessionBytes, storageReport } from '../engine/storage/report';
import type { WorkspaceEngine } from '../engine/workspaceEngine';

/** Flags given override the saved budget one by one; `save` keeps the result as the workspace's budget. */
export async function collectGarbage(
  engine: WorkspaceEngine,
  flags: Partial<StorageBudget> = {},
  opts: { save?: boolean } = {},
): Promise<GcResult> {
  return engine.write(async () => {
    const budget = checkBudget({ ...(await readBudget(engine.ws)), ...definedOnly(flags) });
    if (opts.save) await saveBudget(engine.ws, budget);
    return gcLocked(engine, budget);
  });
}

export function forgetSession(engine: WorkspaceEngine, id: string, opts: { force?: boolean } = {}): Promise<GcResult> {
  return engine.write(() => forgetLocked(engine, id, opts));
}

export function setStorageBudget(engine: WorkspaceEngine, budget: StorageBudget): Promise<StorageBudget> {
  return engine.write(() => saveBudget(engine.ws, budget));
}

export function storageOf(engine: WorkspaceEngine): Promise<StorageReport> {
  return storageReport(engine);
}

/** `retrace sessions`: each summary with what forgetting it would free (additive `bytes`). */
export async function sessionsWithBytes(engine: WorkspaceEngine): Promise<SessionSummary[]> {
  const list = await engine.listSessions();
  const bytes = await sessionBytes(
    engine,
    list.map((s) => s.id),
  );
  return list.map((s) => ({ ...s, bytes: bytes.get(s.id)?.bytes ?? 0 }));
}

function definedOnly(b: Partial<StorageBudget>): Partial<StorageBudget> {
  const out: Partial<StorageBudget> = {};
  if (b.maxBytes !== undefined) out.maxBytes = b.maxBytes;
  if (b.keepDays !== undefined) out.keepDays = b.keepDays;
  return out;
}
