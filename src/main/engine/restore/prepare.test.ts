/**
 * A restore prepares from the last snapshot's tree while its safety snapshot scans (prepare.ts, issue 15). That
 * work is taken only when the snapshot names the same tree: a folder changed since the last checkpoint is
 * planned, checked and kept from the new snapshot, so that nothing of the change is left out or lost (I9, I11).
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../../test/helpers';
import { nowNs } from '../shadow/fileIdentity';
import { traceSteps } from '../stepTrace';
import { prepare } from './prepare';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';

afterAll(cleanupTempDirs);

async function twoCheckpoints() {
  const root = makeWorkspace({ 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: tempHome() }));
  const first = (await engine.checkpoint()).hash!;
  writeFileSync(path.join(root, 'a.txt'), 'a1\n');
  await engine.checkpoint();
  const at = (p: string): string => path.join(root, p);
  return { root, engine, first, at };
}

const stepNames = (steps: string): string[] => steps.split(' ').map((s) => s.split('=')[0]!);

describe('a restore prepared while its safety snapshot scans', () => {
  it('takes what it prepared when nothing changed since the last checkpoint', async () => {
    const { engine, first, at } = await twoCheckpoints();
    const { value, steps } = await traceSteps(() => engine.restore({ target: first, mode: 'code' }));
    expect(value.changed).toEqual(['a.txt']);
    expect(stepNames(steps)).toContain('identities');
    expect(stepNames(steps)).not.toContain('plan'); // planned ahead, not again
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a0\n');
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
  });

  it('plans from the new snapshot when the folder changed since: the change is restored over and undone back', async () => {
    const { engine, first, at } = await twoCheckpoints();
    // Not checkpointed: the last snapshot's tree does not have these, the restore's safety snapshot does.
    writeFileSync(at('b.txt'), 'b edited\n');
    writeFileSync(at('new.key'), 'secret\n');
    chmodSync(at('new.key'), 0o600);
    const { value, steps } = await traceSteps(() => engine.restore({ target: first, mode: 'code' }));
    expect(stepNames(steps)).toContain('plan');
    expect(value.changed).toEqual(['a.txt', 'b.txt', 'new.key']);
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b0\n');
    expect(existsSync(at('new.key'))).toBe(false);
    // The undo takes its files and their exact modes from what the restore kept of the new snapshot.
    await engine.undo();
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('a1\n');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b edited\n');
    expect(readFileSync(at('new.key'), 'utf8')).toBe('secret\n');
    expect(statSync(at('new.key')).mode & 0o777).toBe(0o600);
  });

  it('reads ahead no content the attic holds: those files are renamed back in, not written', async () => {
    const { engine, first } = await twoCheckpoints();
    const shadow = await engine.shadow();
    const made = (await shadow.planAhead(await shadow.treeOf(first)))!;
    const input = { ctx: engine, shadow, plan: made.plan, fromTree: made.from, startedNs: nowNs() };
    expect((await prepare(input)).known.readAhead.size).toBe(1); // a.txt's first content
    const held = await prepare({ ...input, attic: { holds: (rel: string) => rel === 'a.txt' } });
    expect(held.known.readAhead.size).toBe(0);
    // Held for another path only: read ahead as before.
    expect((await prepare({ ...input, attic: { holds: (rel: string) => rel === 'b.txt' } })).known.readAhead.size).toBe(
      1,
    );
  });

  it('a dry run plans ahead too, and says what the restore would change', async () => {
    const { engine, first, at } = await twoCheckpoints();
    const ahead = await traceSteps(() => engine.restore({ target: first, mode: 'code', dryRun: true }));
    expect(ahead.value.changed).toEqual(['a.txt']);
    expect(stepNames(ahead.steps)).not.toContain('plan');
    writeFileSync(at('b.txt'), 'b edited\n');
    const fresh = await traceSteps(() => engine.restore({ target: first, mode: 'code', dryRun: true }));
    expect(fresh.value.changed).toEqual(['a.txt', 'b.txt']);
    expect(stepNames(fresh.steps)).toContain('plan');
    expect(readFileSync(at('b.txt'), 'utf8')).toBe('b edited\n');
  });
});
