/** usecases/search.ts on real workspaces and real git: text, changed paths, labels, rewound messages, filters. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempHome } from '../../../test/helpers';
import { RetraceError } from '../../shared/errors';
import { resolveWorkspace } from '../engine/workspace';
import { WorkspaceEngine } from '../engine/workspaceEngine';
import { writeBulkSession } from './bulkHistory.testSupport';
import { labelCheckpoint } from './label';
import { search, snippet } from './search';

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

describe('search', () => {
  let root: string;
  let engine: WorkspaceEngine;
  const ids: Record<string, string> = {};
  const hashes: Record<string, string> = {};

  beforeAll(async () => {
    const home = tempHome();
    root = makeWorkspace({ 'README.md': '# app\n' });
    engine = new WorkspaceEngine(await resolveWorkspace(root, { dataHome: home }));
    const prompt = await engine.record({
      session: 'one',
      role: 'user',
      text: 'Please add a LOGIN form',
      checkpoint: true,
    });
    ids.prompt = prompt.message;
    hashes.prompt = prompt.hash!;
    mkdirSync(join(root, 'src/auth'), { recursive: true });
    writeFileSync(join(root, 'src/auth/Login.tsx'), 'export const Login = 1;\n');
    const edit = await engine.record({ session: 'one', role: 'tool', text: 'Write', checkpoint: true });
    ids.edit = edit.message;
    hashes.edit = edit.hash!;
    const reply = await engine.record({ session: 'one', role: 'assistant', text: 'Done. The form is in place.' });
    ids.reply = reply.message;
    const empty = await engine.record({ session: 'one', role: 'tool', text: 'Read', checkpoint: true });
    ids.empty = empty.message;
    // Another session, updated later.
    writeFileSync(join(root, 'notes.md'), 'login notes\n');
    const other = await engine.record({
      session: 'two',
      role: 'user',
      text: 'Fix the login redirect',
      checkpoint: true,
    });
    ids.other = other.message;
  });

  it('matches text case-insensitively, across sessions (newest session first), with snippet and hash', async () => {
    const res = await search(engine, { query: 'login' });
    expect(res.hits.map((h) => h.message)).toEqual([ids.other, ids.prompt, ids.edit]);
    expect(res.total).toBe(3);
    const prompt = res.hits[1]!;
    expect(prompt).toMatchObject({
      session: 'one',
      role: 'user',
      snippet: 'Please add a LOGIN form',
      hash: hashes.prompt,
      paths: [],
    });
    expect(prompt.hidden).toBeUndefined();
  });

  it('finds a checkpoint by the paths its step changed, and names the matching ones', async () => {
    const res = await search(engine, { query: 'AUTH/login', session: 'one' });
    expect(res.hits).toHaveLength(1);
    expect(res.hits[0]).toMatchObject({ message: ids.edit, paths: ['src/auth/Login.tsx'], snippet: 'Write' });
    // The step after it changed nothing: the path is not its own.
    expect((await search(engine, { query: 'Login.tsx' })).hits.map((h) => h.message)).toEqual([ids.edit]);
    // notes.md was changed by session two's checkpoint.
    expect((await search(engine, { query: 'notes.md' })).hits.map((h) => h.message)).toEqual([ids.other]);
  });

  it('one session only; an unknown session is E_UNKNOWN_SESSION', async () => {
    const res = await search(engine, { query: 'redirect', session: 'two' });
    expect(res.hits.map((h) => h.message)).toEqual([ids.other]);
    expect(await codeOf(search(engine, { query: 'x', session: 'nope' }))).toBe('E_UNKNOWN_SESSION');
  });

  it('finds labels, and says which hit carries one', async () => {
    await labelCheckpoint(engine, ids.empty!, 'Known good state');
    const res = await search(engine, { query: 'known GOOD' });
    expect(res.hits).toHaveLength(1);
    expect(res.hits[0]).toMatchObject({ message: ids.empty, label: 'Known good state', snippet: 'Read' });
    await labelCheckpoint(engine, ids.empty!, null);
    expect((await search(engine, { query: 'known good' })).total).toBe(0);
  });

  it('limit cuts the hits but total counts them all; bad limits and long queries are refused', async () => {
    const res = await search(engine, { query: 'o', limit: 2 });
    expect(res.hits).toHaveLength(2);
    expect(res.total).toBeGreaterThan(2);
    expect(await codeOf(search(engine, { query: 'o', limit: 0 }))).toBe('E_INVALID_INPUT');
    expect(await codeOf(search(engine, { query: 'x'.repeat(501) }))).toBe('E_INVALID_INPUT');
  });

  it('filters: prompts only, changes only, and an empty query listing what they keep, with timeline indexes', async () => {
    const prompts = await search(engine, { query: '', session: 'one', roles: ['user'] });
    expect(prompts.hits.map((h) => [h.message, h.index])).toEqual([[ids.prompt, 0]]);
    const changes = await search(engine, { query: '', session: 'one', changesOnly: true });
    // The prompt's checkpoint captured the project; the edit added a file; "Read" changed nothing.
    expect(changes.hits.map((h) => [h.message, h.index])).toEqual([
      [ids.prompt, 0],
      [ids.edit, 1],
    ]);
    const both = await search(engine, { query: 'form', session: 'one', changesOnly: true });
    expect(both.hits.map((h) => h.message)).toEqual([ids.prompt]);
  });

  it('rewound messages are found and marked hidden; without includeHidden they are left out', async () => {
    const home = tempHome();
    const dir = makeWorkspace({ 'a.txt': '1\n' });
    const e = new WorkspaceEngine(await resolveWorkspace(dir, { dataHome: home }));
    const first = await e.record({ session: 's', role: 'user', text: 'first prompt', checkpoint: true });
    const later = await e.record({ session: 's', role: 'assistant', text: 'a later prompt answer' });
    const last = await e.record({ session: 's', role: 'user', text: 'last prompt' });
    await e.restore({ target: first.hash!, mode: 'conversation' });
    const all = await search(e, { query: 'prompt' });
    expect(all.hits.map((h) => [h.message, h.hidden ?? false, h.index])).toEqual([
      [first.message, false, 0],
      [later.message, true, 1],
      [last.message, true, 2],
    ]);
    const visible = await search(e, { query: 'prompt', includeHidden: false });
    expect(visible.hits.map((h) => h.message)).toEqual([first.message]);
  });

  it('snippet: one line around the first match', () => {
    expect(snippet('line one\nline two has the Needle in it', 'needle')).toBe('line one line two has the Needle in it');
    const long = `${'a'.repeat(100)} needle ${'b'.repeat(200)}`;
    const s = snippet(long, 'needle');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).toContain('needle');
    expect(snippet('no match here', '')).toBe('no match here');
  });
});

describe('search at scale', () => {
  it('a 2,000-message session with 1,000 checkpoints: stays fast, and every checkpoint is matched on the paths of its own step', async () => {
    const home = tempHome();
    const dir = makeWorkspace({ 'README.md': '# project\n' });
    const ws = await resolveWorkspace(dir, { dataHome: home });
    const hashes = await writeBulkSession(new WorkspaceEngine(ws), 's-bulk', 2000, 2);
    expect(hashes).toHaveLength(1000);

    const engine = new WorkspaceEngine(ws); // cold: nothing remembered yet
    let t = performance.now();
    const byPath = await search(engine, { query: 'mod7/step47.ts' });
    const cold = performance.now() - t;
    expect(byPath.hits.map((h) => [h.hash, h.paths])).toEqual([[hashes[46], ['src/mod7/step47.ts']]]);
    t = performance.now();
    const byText = await search(engine, { query: 'NEEDLE', limit: 5 });
    const warm = performance.now() - t;
    expect(byText.total).toBe(10); // the odd multiples of 97 (even ones are checkpoints, with other text)
    expect(byText.hits).toHaveLength(5);
    // README.md changes at every step: each checkpoint's own diff is what it is matched on.
    expect((await search(engine, { query: 'readme' })).total).toBe(1000);
    console.log(`search, 2,000 messages / 1,000 checkpoints: cold ${cold.toFixed(0)} ms, warm ${warm.toFixed(0)} ms`);
    // Generous bounds for a shared 2-core machine; measured about 200 ms cold and 100 ms warm.
    expect(cold).toBeLessThan(5000);
    expect(warm).toBeLessThan(2000);
  }, 60_000);
});
