/** Checkpoint labels (usecases/label.ts, engine/labels.ts): tag refs in the shadow repository, on real git. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, fsck, gitAt, makeWorkspace, tempHome } from '../../../test/helpers';
import { RetraceError } from '../../shared/errors';
import { LABEL_MAX, labelRef, readLabels } from '../engine/labels';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { createService } from '../service';
import { labelCheckpoint, withLabels } from './label';

afterAll(cleanupTempDirs);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof RetraceError) return e.code;
    throw e;
  }
}

let home: string;
let root: string;
let engine: WorkspaceEngine;
let gitDir: string;
const labelRefs = () => gitAt(gitDir, ['for-each-ref', '--format=%(refname)', 'refs/retrace/labels/']).trim();

beforeEach(async () => {
  home = tempHome();
  root = makeWorkspace({ 'a.txt': '1\n' });
  engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
  gitDir = (await engine.shadow()).gitDir;
});

describe('labels', () => {
  it('a label is a tag ref on the checkpoint commit; set by message id or hash prefix, replaced, removed', async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    const res = await labelCheckpoint(engine, c1.message, 'before the refactor');
    expect(res).toEqual({ hash: c1.hash, message: c1.message, session: 's', label: 'before the refactor' });
    const ref = labelRef(c1.hash!);
    expect(ref).toBe(`refs/retrace/labels/${c1.hash}`);
    const tag = gitAt(gitDir, ['rev-parse', ref]).trim();
    expect(gitAt(gitDir, ['cat-file', '-t', tag]).trim()).toBe('tag');
    expect(gitAt(gitDir, ['rev-parse', `${ref}^{commit}`]).trim()).toBe(c1.hash);
    expect(gitAt(gitDir, ['cat-file', 'tag', tag])).toMatch(/\n\nbefore the refactor\n$/);

    await labelCheckpoint(engine, c1.hash!.slice(0, 9), 'renamed');
    expect(labelRefs()).toBe(ref); // still one label per checkpoint
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'renamed']]));

    expect(await labelCheckpoint(engine, c1.hash!, null)).toMatchObject({ label: null });
    expect(labelRefs()).toBe('');
    // Removing a label that is not there is no error.
    expect(await labelCheckpoint(engine, c1.hash!, null)).toMatchObject({ label: null });
  });

  it('labels show on their messages (withLabels, the timeline over the service)', async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    const m = await engine.record({ session: 's', role: 'assistant', text: 'ok' });
    writeFileSync(join(root, 'a.txt'), '2\n');
    const c2 = await engine.record({ session: 's', role: 'tool', text: 'Edit', checkpoint: true });
    const service = createService({ host: 'serve', dataHome: home, watch: false });
    const opened = await service.dispatch('openWorkspace', { path: root });
    if (!opened.ok) throw new Error(opened.error.message);
    const workspace = opened.value.id;
    const set = await service.dispatch('label', { workspace, target: c2.message, text: 'works' });
    expect(set).toMatchObject({ ok: true, value: { hash: c2.hash, label: 'works' } });
    const page = await service.dispatch('timeline', { workspace, session: 's' });
    if (!page.ok) throw new Error(page.error.message);
    expect(page.value.messages.map((x) => [x.id, x.label])).toEqual([
      [c1.message, undefined],
      [m.message, undefined],
      [c2.message, 'works'],
    ]);
    const found = await service.dispatch('search', { workspace, query: 'WORKS' });
    expect(found).toMatchObject({ ok: true, value: { total: 1, hits: [{ message: c2.message, label: 'works' }] } });
    expect(await service.dispatch('label', { workspace, target: c2.message, text: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'E_INVALID_INPUT' },
    });
    const state = await engine.session('s');
    expect((await withLabels(engine, state.messages)).map((x) => x.label)).toEqual([undefined, undefined, 'works']);
    await service.close();
  });

  it('a labelled checkpoint stays reachable when its session is gone, through gc', async () => {
    const c1 = await engine.record({ session: 'gone', role: 'user', text: 'go', checkpoint: true });
    writeFileSync(join(root, 'a.txt'), 'kept by its label\n');
    const c2 = await engine.record({ session: 'gone', role: 'tool', text: 'Edit', checkpoint: true });
    await labelCheckpoint(engine, c2.hash!, 'keep me');
    await engine.write(() => engine.deleteSessionLocked('gone'));
    gitAt(gitDir, ['-c', 'gc.reflogExpire=now', '-c', 'gc.reflogExpireUnreachable=now', 'gc', '--prune=now', '-q']);
    expect(gitAt(gitDir, ['cat-file', '-t', c2.hash!]).trim()).toBe('commit');
    expect(gitAt(gitDir, ['show', `${c2.hash}:a.txt`])).toBe('kept by its label\n');
    expect(gitAt(gitDir, ['cat-file', '-t', c1.hash!]).trim()).toBe('commit'); // its parent, history intact
    expect(fsck(gitDir).ok).toBe(true);
  });

  it("maintenance (pack, gc, the repository's health checks) keeps labels and finds nothing to repair in them", async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    await labelCheckpoint(engine, c1.hash!, 'stays');
    const before = (await engine.status()).recovered.length;
    expect((await engine.maintenance({ force: true })).ran).toBe(true);
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'stays']]));
    expect((await engine.status()).recovered.slice(before)).toEqual([]);
  });

  it('with no label ref, loose or packed, labels are read without git; a loose or a packed one is found', async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    // A reader that fails if it asks git: the first timeline page of a window need not wait for the repository.
    const noGit = { ws: engine.ws, shadow: () => Promise.reject(new Error('asked git')) };
    gitAt(gitDir, ['pack-refs', '--all']); // the session refs packed: packed-refs exists, with no label in it
    expect(await readLabels(noGit)).toEqual(new Map());
    await labelCheckpoint(engine, c1.hash!, 'loose');
    await expect(readLabels(noGit)).rejects.toThrow('asked git');
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'loose']]));
    gitAt(gitDir, ['pack-refs', '--all']);
    expect(labelRefs()).toBe(labelRef(c1.hash!));
    await expect(readLabels(noGit)).rejects.toThrow('asked git');
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'loose']]));
  });

  it('a reader sees labels another process writes, replaces, packs and deletes at once (no stale cache)', async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    const ref = labelRef(c1.hash!);
    const tag = (text: string) =>
      execFileSync('git', [`--git-dir=${gitDir}`, 'mktag'], {
        input: `object ${c1.hash}\ntype commit\ntag x\ntagger T <t@t> 1 +0000\n\n${text}\n`,
        encoding: 'utf8',
      }).trim();
    expect(await readLabels(engine)).toEqual(new Map());
    gitAt(gitDir, ['update-ref', ref, tag('one')]);
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'one']]));
    gitAt(gitDir, ['update-ref', ref, tag('two')]); // same name, same size, same second
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'two']]));
    gitAt(gitDir, ['pack-refs', '--all']);
    gitAt(gitDir, ['update-ref', ref, tag('six')]);
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'six']]));
    gitAt(gitDir, ['pack-refs', '--all']);
    expect(await readLabels(engine)).toEqual(new Map([[c1.hash, 'six']]));
    gitAt(gitDir, ['update-ref', '-d', ref]);
    expect(await readLabels(engine)).toEqual(new Map());
  });

  it('bad input: empty, too long, unknown checkpoint, a message without one — each a code, nothing written', async () => {
    const c1 = await engine.record({ session: 's', role: 'user', text: 'go', checkpoint: true });
    const plain = await engine.record({ session: 's', role: 'assistant', text: 'no checkpoint' });
    expect(await codeOf(labelCheckpoint(engine, c1.message, ''))).toBe('E_INVALID_INPUT');
    expect(await codeOf(labelCheckpoint(engine, c1.message, ' \n\t '))).toBe('E_INVALID_INPUT');
    expect(await codeOf(labelCheckpoint(engine, c1.message, 'é'.repeat(LABEL_MAX + 1)))).toBe('E_INVALID_INPUT');
    expect(await codeOf(labelCheckpoint(engine, 'deadbeef00', 'x'))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await codeOf(labelCheckpoint(engine, plain.message, 'x'))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(await codeOf(labelCheckpoint(engine, 'm_nope', 'x'))).toBe('E_UNKNOWN_CHECKPOINT');
    expect(labelRefs()).toBe('');
    // The longest label is fine (counted in characters, not bytes); lines become one.
    expect((await labelCheckpoint(engine, c1.message, 'é'.repeat(LABEL_MAX))).label).toHaveLength(LABEL_MAX);
    expect((await labelCheckpoint(engine, c1.message, '  two\nlines  ')).label).toBe('two lines');
  });
});
