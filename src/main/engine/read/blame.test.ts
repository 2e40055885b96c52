/** Blame's origin rule per role and agent, on a real workspace and shadow repository (no CLI). */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../../test/helpers';
import { resolveWorkspace } from '../workspace';
import { WorkspaceEngine } from '../workspaceEngine';
import { BLAME_MAX_BYTES, blameFile } from './blame';

afterAll(cleanupTempDirs);

describe('blame origin', () => {
  it("a system checkpoint is the agent's step in an agent's session, the person's in a cli session", async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'f.txt': 'a\nb\nc\n' });
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    await engine.record({ session: 'cl', source: 'cline', role: 'user', text: 'task', checkpoint: true });
    writeFileSync(join(root, 'f.txt'), 'a\nB\nc\n');
    // Cline records its checkpoints as "checkpoint_created" system messages after its tools ran.
    const clineStep = await engine.record({ session: 'cl', role: 'system', text: 'Checkpoint', checkpoint: true });
    writeFileSync(join(root, 'f.txt'), 'a\nB\nC\n');
    const manual = await engine.record({
      session: 'me',
      source: 'cli',
      role: 'system',
      text: 'mine',
      checkpoint: true,
    });

    const { lines } = await blameFile(engine, 'f.txt');
    expect(lines.map((l) => [l.origin, l.hash, l.agent, l.role])).toEqual([
      ['baseline', null, null, null],
      ['agent', clineStep.hash, 'cline', 'system'],
      ['person', manual.hash, null, 'system'],
    ]);
  });

  it('a file with no checkpoint at all is all baseline; an empty file has no lines; a giant is refused', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'f.txt': 'x\ny', 'empty.txt': '' });
    const engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    expect((await blameFile(engine, 'f.txt')).lines.map((l) => [l.line, l.origin])).toEqual([
      [1, 'baseline'],
      [2, 'baseline'],
    ]);
    expect((await blameFile(engine, 'empty.txt')).lines).toEqual([]);
    // A name that was a folder at the last checkpoint and is a file now: changed since, line by line.
    mkdirSync(join(root, 'x'));
    writeFileSync(join(root, 'x', 'inner.txt'), 'i\n');
    await engine.checkpoint({ session: 's' });
    rmSync(join(root, 'x'), { recursive: true });
    writeFileSync(join(root, 'x'), 'one\n');
    expect((await blameFile(engine, 'x')).lines.map((l) => [l.origin, l.hash])).toEqual([['person', null]]);
    writeFileSync(join(root, 'huge.txt'), Buffer.alloc(BLAME_MAX_BYTES + 1, 0x61));
    await expect(blameFile(engine, 'huge.txt')).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
  });
});
