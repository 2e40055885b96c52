/**
 * The hook server keeps each folder's ShadowRepo open across its per-call engines (residentShadows.ts): one
 * repository (and so one set of resident git processes) per folder, opened afresh when its folder was removed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { keepShadowsOpen } from './residentShadows';
import { resolveWorkspace } from './workspace';
import { WorkspaceEngine } from './workspaceEngine';

afterAll(cleanupTempDirs);

describe('kept shadow repositories', () => {
  it('gives every engine of a folder the same open repository, and a new one once its data was removed', async () => {
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const home = tempHome();
    const before = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const unkept = await before.shadow();
    keepShadowsOpen();
    const first = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const c1 = await first.checkpoint({ session: 's', text: 'one' });
    const second = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    writeFileSync(path.join(root, 'a.txt'), 'b\n');
    const c2 = await second.checkpoint({ session: 's', text: 'two', hintPaths: ['a.txt'] });
    expect(await second.shadow()).toBe(await first.shadow());
    expect(await first.shadow()).not.toBe(unkept);
    expect((await second.diff(c1.hash, c2.hash!)).map((f) => f.path)).toEqual(['a.txt']);
    await first.closeShadow(); // an engine done with it leaves it open for the next call
    expect((await (await second.shadow()).readFile(c2.hash!, 'a.txt'))?.bytes.toString()).toBe('b\n');

    // `retrace forget` removed the folder's data: the next engine opens (and creates) a new repository.
    rmSync(first.ws.dir, { recursive: true, force: true });
    const third = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const c3 = await third.checkpoint({ session: 's', text: 'three' });
    expect(await third.shadow()).not.toBe(await second.shadow());
    expect((await third.diff(null, c3.hash!)).map((f) => f.path)).toEqual(['a.txt']);

    // A failed write drops it: the next call opens it afresh (open's checks, a doctor that may repair again).
    await expect(third.checkpoint({ session: 'not a session id!' })).rejects.toMatchObject({ code: 'E_INVALID_INPUT' });
    const fourth = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    expect(await fourth.shadow()).not.toBe(await third.shadow());
  });
});
