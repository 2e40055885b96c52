/**
 * A workspace's storage budget (`retrace gc --save`, the app's Storage dialog): <ws.dir>/storage-budget.json.
 * `retrace gc` without flags, and the app's "Collect now", apply it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import type { StorageBudget } from '../../../shared/model';
import { writeFilePrivate } from '../privateFs';
import type { WorkspaceRef } from '../workspace';

const BUDGET_FILE = 'storage-budget.json';

export const NO_BUDGET: StorageBudget = { maxBytes: null, keepDays: null };

export async function readBudget(ws: WorkspaceRef): Promise<StorageBudget> {
  try {
    const j = JSON.parse(await fs.readFile(path.join(ws.dir, BUDGET_FILE), 'utf8')) as Partial<StorageBudget>;
    return { maxBytes: limitOrNull(j.maxBytes), keepDays: limitOrNull(j.keepDays) };
  } catch {
    return { ...NO_BUDGET }; // never set (or unreadable: no limit rather than a guess)
  }
}

/** Replaced atomically; the caller holds the writer lock. */
export async function saveBudget(ws: WorkspaceRef, budget: StorageBudget): Promise<StorageBudget> {
  const clean = checkBudget(budget);
  const file = path.join(ws.dir, BUDGET_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFilePrivate(tmp, JSON.stringify(clean) + '\n');
  await fs.rename(tmp, file);
  return clean;
}

/** A non-negative whole number or null; anything else is E_INVALID_INPUT naming the field. */
export function checkBudget(b: Partial<StorageBudget>): StorageBudget {
  const check = (name: string, v: unknown): number | null => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw new RetraceError('E_INVALID_INPUT', `${name} must be a whole number ≥ 0, not ${JSON.stringify(v)}`);
    return v;
  };
  return { maxBytes: check('maxBytes', b.maxBytes), keepDays: check('keepDays', b.keepDays) };
}

function limitOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}
