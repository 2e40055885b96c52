/**
 * I8 (and I3, I1, I6 after a crash): kill the real CLI at every named fault step of checkpoint, restore, undo
 * and recovery itself, and at random moments, then check that the next command repairs everything.
 * Replay a random failure with RETRACE_TEST_SEED=<seed printed below>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_STEP_OPS, FAULT_STEPS } from '../../src/main/engine/faults';
import { cleanupTempDirs, prng, runCli, testSeed, type Manifest } from '../helpers/index';
import {
  cloneScenario,
  expectedAfter,
  prepare,
  runKilled,
  verifyAfterCrash,
  type OpKind,
  type Outcome,
  type Scenario,
} from './scenario';

const SEED = testSeed(20261201);
const RANDOM_CHECKPOINT_TRIALS = 33;
const RANDOM_RESTORE_TRIALS = 33;
const PARALLEL = 2;

interface Trial {
  name: string;
  op: OpKind;
  /** A fault step, or a random kill delay. */
  how: { fault: string } | { killAfterMs: number };
  /** For recovery steps: crash the recovery of the first crash too. */
  recoveryFault?: string;
}

interface Result {
  trial: Trial;
  killed: boolean;
  outcome: Outcome;
}

const results: Result[] = [];
const afterByOp = new Map<OpKind, Manifest | null>();
const templates = new Map<OpKind, Scenario>();
const msByOp = new Map<OpKind, number>();

async function runTrial(t: Trial): Promise<Result> {
  const s = { ...(await cloneScenario(templates.get(t.op)!)), op: t.op };
  const r = await runKilled(s, t.name, t.how);
  const killed = r.signal === 'SIGKILL';
  const extra: string[] = [];
  if (!killed && r.code !== 0) extra.push(`operation failed instead of dying: ${r.stderr.trim()}`);
  if (t.recoveryFault) {
    const rec = await runCli(['status', '--json'], {
      home: s.home,
      cwd: s.ws,
      env: { RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: t.recoveryFault },
    });
    if (rec.signal !== 'SIGKILL') extra.push(`recovery fault ${t.recoveryFault} was never reached`);
  }
  const outcome = await verifyAfterCrash(s, afterByOp.get(t.op) ?? null);
  outcome.problems.unshift(...extra);
  if ('fault' in t.how && killed && outcome.recovered.length === 0)
    outcome.problems.push('status reports nothing recovered after a crash');
  const res = { trial: t, killed, outcome };
  results.push(res);
  return res;
}

async function pool<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

function failuresOf(rs: Result[]): string[] {
  return rs
    .filter((r) => r.outcome.problems.length > 0)
    .map((r) => `${r.trial.name}: ${r.outcome.problems.join(' | ')}`);
}

// Which operations reach each step comes from faults.ts itself, so a new step is tried without editing this file.
const stepsFor = (op: 'checkpoint' | 'restore' | 'undo' | 'recovery') =>
  FAULT_STEPS.filter((s) => FAULT_STEP_OPS[s].includes(op));
const checkpointSteps = stepsFor('checkpoint');
const restoreSteps = [...new Set([...stepsFor('restore'), ...stepsFor('undo')])];
const recoverySteps = stepsFor('recovery');

beforeAll(async () => {
  // The "after" state of each operation and how long it takes, from an unharmed run on an identical scenario.
  // Two prepared states serve every operation: the base one, and one with a restore to undo.
  const base = await prepare('checkpoint');
  const withRestore = await prepare('undo');
  const ops: OpKind[] = ['checkpoint', 'message', 'restore-code', 'restore-both', 'undo'];
  for (const op of ops) {
    const template = { ...(op === 'undo' ? withRestore : base), op };
    templates.set(op, template);
    const { after, ms } = await expectedAfter(template);
    afterByOp.set(op, op === 'checkpoint' || op === 'message' ? null : after);
    msByOp.set(op, ms);
  }
}, 120_000);

afterAll(() => {
  const failed = results.filter((r) => r.outcome.problems.length > 0).length;
  const killed = results.filter((r) => r.killed).length;
  const states = results.reduce<Record<string, number>>(
    (a, r) => ((a[r.outcome.state] = (a[r.outcome.state] ?? 0) + 1), a),
    {},
  );
  console.log(
    `fault-injection: ${results.length} trials, ${failed} failures (killed mid-operation: ${killed}; ` +
      `ended before: ${states.before ?? 0}, after: ${states.after ?? 0}; seed ${SEED}; ` +
      `op ms ${[...msByOp].map(([k, v]) => `${k}=${v}`).join(' ')})`,
  );
  cleanupTempDirs();
});

describe('fault injection (I8)', () => {
  it('has fault steps for checkpoint, restore and recovery', () => {
    expect(checkpointSteps.length).toBeGreaterThan(0);
    expect(restoreSteps.length).toBeGreaterThan(0);
    expect(recoverySteps.length).toBeGreaterThan(0);
  });

  it('recovers from a kill at every checkpoint step', async () => {
    const trials: Trial[] = checkpointSteps.flatMap((step) =>
      (['checkpoint', 'message'] as const).map((op) => ({ name: `${op}@${step}`, op, how: { fault: step } })),
    );
    const rs = await pool(trials, PARALLEL, runTrial);
    for (const step of checkpointSteps)
      expect(
        rs.some((r) => 'fault' in r.trial.how && r.trial.how.fault === step && r.killed),
        `${step} never reached`,
      ).toBe(true);
    expect(failuresOf(rs)).toEqual([]);
  }, 180_000);

  it('recovers from a kill at every restore and undo step (rolled back or completed, never half)', async () => {
    const trials: Trial[] = restoreSteps.flatMap((step) =>
      (['restore-code', 'restore-both', 'undo'] as const)
        .filter((op) => FAULT_STEP_OPS[step].includes(op === 'undo' ? 'undo' : 'restore'))
        .map((op) => ({ name: `${op}@${step}`, op, how: { fault: step } })),
    );
    const rs = await pool(trials, PARALLEL, runTrial);
    for (const step of restoreSteps)
      expect(
        rs.some((r) => 'fault' in r.trial.how && r.trial.how.fault === step && r.killed),
        `${step} never reached`,
      ).toBe(true);
    // Killed before its ledger entry, a restore must be rolled back, and status must say so.
    for (const r of rs) {
      const step = 'fault' in r.trial.how ? r.trial.how.fault : '';
      if (r.killed && ['restore:after-journal', 'restore:mid-apply', 'restore:after-apply'].includes(step)) {
        expect(r.outcome.state, r.trial.name).toBe('before');
        expect(
          r.outcome.recovered.map((x) => x.kind),
          r.trial.name,
        ).toContain('restore-rolled-back');
      }
    }
    expect(failuresOf(rs)).toEqual([]);
  }, 240_000);

  it('recovers when the recovery itself is killed', async () => {
    const trials: Trial[] = recoverySteps.flatMap((step) => [
      {
        name: `restore-code@restore:mid-apply+${step}`,
        op: 'restore-code' as const,
        how: { fault: 'restore:mid-apply' },
        recoveryFault: step,
      },
      {
        name: `restore-both@restore:after-rewind+${step}`,
        op: 'restore-both' as const,
        how: { fault: 'restore:after-rewind' },
        recoveryFault: step,
      },
    ]);
    const rs = await pool(trials, PARALLEL, runTrial);
    expect(failuresOf(rs)).toEqual([]);
  }, 120_000);

  it('recovers from SIGKILLs at random moments of checkpoints', async () => {
    const rng = prng(SEED);
    const trials: Trial[] = Array.from({ length: RANDOM_CHECKPOINT_TRIALS }, (_, i) => {
      const op = rng.pick(['checkpoint', 'message'] as const);
      const ms = rng.int(0, Math.round((msByOp.get(op) ?? 500) * 1.1));
      return { name: `random#${i} ${op} kill@${ms}ms`, op, how: { killAfterMs: ms } };
    });
    const rs = await pool(trials, PARALLEL, runTrial);
    expect(failuresOf(rs)).toEqual([]);
  }, 240_000);

  it('recovers from SIGKILLs at random moments of restores and undos', async () => {
    const rng = prng(SEED + 1);
    const trials: Trial[] = Array.from({ length: RANDOM_RESTORE_TRIALS }, (_, i) => {
      const op = rng.pick(['restore-code', 'restore-both', 'undo'] as const);
      const ms = rng.int(0, Math.round((msByOp.get(op) ?? 500) * 1.1));
      return { name: `random#${i} ${op} kill@${ms}ms`, op, how: { killAfterMs: ms } };
    });
    const rs = await pool(trials, PARALLEL, runTrial);
    expect(failuresOf(rs)).toEqual([]);
  }, 240_000);
});
