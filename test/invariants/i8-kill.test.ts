/**
 * I8: a process killed at any moment of a checkpoint or a restore leaves a state the next command detects
 * and repairs — an interrupted restore is rolled back (or, past its ledger entry, complete), never half —
 * and `retrace status` says what happened. Kills use the internal fault hook (src/main/engine/faults.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAULT_STEPS } from '../../src/main/engine/faults';
import {
  cleanupTempDirs,
  cliJson,
  digest,
  gitAt,
  makeWorkspace,
  runCli,
  shadowDir,
  tempHome,
  treeManifest,
  type TreeSpec,
} from '../helpers';

afterAll(cleanupTempDirs);

const fault = (step: string) => ({ RETRACE_TEST_FAULTS: '1', RETRACE_FAULT: step });
type Log = { messages: { id: string; hash: string | null; hidden: boolean }[] };

async function scenario() {
  const spec: TreeSpec = {};
  for (let i = 0; i < 10; i++) spec[`f${i}.txt`] = `v1 ${i}\n`;
  const root = makeWorkspace(spec);
  const home = tempHome();
  const o = { home, cwd: root };
  const target = await cliJson(['checkpoint', '--session', 's'], o);
  for (let i = 0; i < 10; i++) writeFileSync(join(root, `f${i}.txt`), `v2 ${i}\n`);
  writeFileSync(join(root, 'new.txt'), 'never checkpointed\n');
  await cliJson(['message', '--role', 'assistant', '--text', 'later', '--session', 's', '--checkpoint'], o);
  const before = digest(treeManifest(root));
  const visibleBefore = (await cliJson<Log>(['log', '--session', 's'], o)).messages.length;
  return { root, home, o, target, before, visibleBefore };
}

describe('I8: killed restores are rolled back or complete, never half', () => {
  const restoreSteps = FAULT_STEPS.filter((s) => s.startsWith('restore:'));
  for (const step of restoreSteps) {
    it(`restore --both killed at ${step}`, async () => {
      const { root, o, target, before, visibleBefore } = await scenario();
      const killed = await runCli(['restore', target.hash as string, '--both', '--json'], { ...o, env: fault(step) });
      expect(killed.signal).toBe('SIGKILL');

      const st = await cliJson<{ recovered: { kind: string }[]; lastRestore: unknown }>(['status'], o);
      const now = digest(treeManifest(root));
      const visible = (await cliJson<Log>(['log', '--session', 's'], o)).messages.length;
      const completed = step === 'restore:after-ledger' || step === 'restore:after-clear';
      if (completed) {
        expect(now).not.toBe(before);
        expect(visible).toBe(1);
        expect(st.lastRestore).not.toBeNull();
        // and it is undoable as usual
        await cliJson(['undo'], o);
        expect(digest(treeManifest(root))).toBe(before);
      } else {
        expect(now, 'files rolled back').toBe(before);
        expect(visible, 'conversation rolled back').toBe(visibleBefore);
        expect(st.lastRestore).toBeNull();
        if (step !== 'restore:after-safety') expect(st.recovered.map((r) => r.kind)).toContain('restore-rolled-back');
      }
      // Whatever happened, the workspace works: the same restore now runs to the end.
      await cliJson(['restore', target.hash as string, '--both'], o);
      expect((await cliJson<Log>(['log', '--session', 's'], o)).messages.length).toBe(1);
    });
  }

  for (const step of ['recovery:after-rollback', 'recovery:after-compensate'] as const) {
    it(`recovery itself killed at ${step} is re-run to the same result`, async () => {
      const { root, o, target, before, visibleBefore } = await scenario();
      expect(
        (await runCli(['restore', target.hash as string, '--both'], { ...o, env: fault('restore:after-rewind') }))
          .signal,
      ).toBe('SIGKILL');
      expect((await runCli(['status'], { ...o, env: fault(step) })).signal).toBe('SIGKILL');
      await cliJson(['status'], o);
      expect(digest(treeManifest(root))).toBe(before);
      expect((await cliJson<Log>(['log', '--session', 's'], o)).messages.length).toBe(visibleBefore);
    });
  }
});

describe('I8: a killed undo is rolled back too', () => {
  for (const step of ['restore:mid-apply', 'restore:after-rewind'] as const) {
    it(`undo killed at ${step} leaves the restored state; undo then works`, async () => {
      const { root, o, target, before } = await scenario();
      await cliJson(['restore', target.hash as string, '--both'], o);
      const restored = digest(treeManifest(root));
      expect((await runCli(['undo'], { ...o, env: fault(step) })).signal).toBe('SIGKILL');
      await cliJson(['status'], o);
      expect(digest(treeManifest(root))).toBe(restored);
      expect((await cliJson<Log>(['log', '--session', 's'], o)).messages.length).toBe(1);
      await cliJson(['undo'], o);
      expect(digest(treeManifest(root))).toBe(before);
      expect((await cliJson<Log>(['log', '--session', 's'], o)).messages.length).toBe(2);
    });
  }
});

describe('I8: killed checkpoints leave a whole chain', () => {
  for (const step of FAULT_STEPS.filter((s) => s.startsWith('checkpoint:'))) {
    it(`checkpoint killed at ${step}`, async () => {
      const root = makeWorkspace({ 'a.txt': 'a\n' });
      const home = tempHome();
      const o = { home, cwd: root };
      await cliJson(['checkpoint', '--session', 's'], o);
      writeFileSync(join(root, 'a.txt'), 'b\n');
      expect((await runCli(['checkpoint', '--session', 's'], { ...o, env: fault(step) })).signal).toBe('SIGKILL');
      await cliJson(['checkpoint', '--session', 's'], o);
      const log = await cliJson<Log>(['log', '--session', 's'], o);
      const hashes = log.messages.map((m) => m.hash!);
      const chain = gitAt(shadowDir(home, root), ['rev-list', '--first-parent', 'refs/retrace/sessions/s'])
        .trim()
        .split('\n');
      expect(chain).toEqual([...hashes].reverse());
      if (step === 'checkpoint:after-append') {
        const st = await cliJson<{ recovered: { kind: string }[] }>(['status'], o);
        expect(st.recovered.map((r) => r.kind)).toContain('checkpoint-ref-repaired');
      }
    });
  }
});
