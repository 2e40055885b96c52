import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, runCli, tempHome, treeManifest } from '../helpers';
import { makeUserProject } from './fixture';

let home: string;
let root: string;
const opts = () => ({ home, cwd: root });
const read = (p: string) => readFileSync(join(root, p), 'utf8');

beforeEach(() => {
  home = tempHome();
  root = makeUserProject();
});
afterAll(cleanupTempDirs);

type Restore = {
  restore: string;
  mode: string;
  target: { hash: string; message: string; session: string };
  safety: string | null;
  changed: string[];
  hidden: number;
  dryRun: boolean;
};

describe('restore and undo', () => {
  it('--code brings back content, symlinks, executable bits and nested-repo files; undo returns the exact state', async () => {
    const c = await cliJson(['checkpoint', '--text', 'before edits'], opts());
    const atCheckpoint = treeManifest(root);
    writeFileSync(join(root, 'src/app.ts'), 'broken\n');
    unlinkSync(join(root, 'link.md'));
    symlinkSync('src/app.ts', join(root, 'link.md'));
    chmodSync(join(root, 'scripts/build.sh'), 0o644);
    rmSync(join(root, 'vendor/lib/index.js'));
    writeFileSync(join(root, 'never-checkpointed.txt'), 'precious\n');
    const edited = treeManifest(root);

    const preview = await cliJson<Restore>(['restore', c.hash as string, '--code', '--dry-run'], opts());
    expect(preview.dryRun).toBe(true);
    expect(preview.safety).toBeNull();
    expect(preview.changed.sort()).toEqual([
      'link.md',
      'never-checkpointed.txt',
      'scripts/build.sh',
      'src/app.ts',
      'vendor/lib/index.js',
    ]);
    expect(treeManifest(root)).toEqual(edited); // a dry run changes nothing

    const r = await cliJson<Restore>(['restore', c.hash as string, '--code'], opts());
    expect(Object.keys(r).sort()).toEqual(['changed', 'dryRun', 'hidden', 'mode', 'restore', 'safety', 'target']);
    expect(r).toMatchObject({
      mode: 'code',
      dryRun: false,
      hidden: 0,
      target: { hash: c.hash, message: c.message, session: c.session },
    });
    expect(r.safety).toMatch(/^[0-9a-f]{40}$/);
    expect(r.changed.sort()).toEqual(preview.changed.sort());
    expect(treeManifest(root)).toEqual(atCheckpoint);
    expect(readlinkSync(join(root, 'link.md'))).toBe('README.md');
    expect(statSync(join(root, 'scripts/build.sh')).mode & 0o111).not.toBe(0);
    expect(existsSync(join(root, 'dist/bundle.js'))).toBe(true); // ignored: untouched

    const u = await cliJson(['undo'], opts());
    expect(u).toMatchObject({ undone: r.restore });
    expect(Object.keys(u).sort()).toEqual(['changed', 'restore', 'undone']);
    expect(treeManifest(root)).toEqual(edited);
    expect(read('never-checkpointed.txt')).toBe('precious\n');
    expect(lstatSync(join(root, 'link.md')).isSymbolicLink()).toBe(true);

    // Undo the undo: the restore again.
    const u2 = await cliJson(['undo'], opts());
    expect(u2).toMatchObject({ undone: u.restore });
    expect(treeManifest(root)).toEqual(atCheckpoint);
  });

  it('--file limits a code restore to those paths', async () => {
    const c = await cliJson(['checkpoint'], opts());
    writeFileSync(join(root, 'src/app.ts'), 'changed app\n');
    writeFileSync(join(root, 'README.md'), 'changed readme\n');
    const r = await cliJson<Restore>(['restore', c.hash as string, '--code', '--file', 'src/app.ts'], opts());
    expect(r.changed).toEqual(['src/app.ts']);
    expect(read('src/app.ts')).toBe('export const app = 1;\n');
    expect(read('README.md')).toBe('changed readme\n');
  });

  it('--conversation hides later messages (log --all shows them), --both does both as one undoable step', async () => {
    await cliJson(['message', '--role', 'user', '--text', 'one', '--session', 's'], opts());
    const c = await cliJson(['checkpoint', '--session', 's'], opts());
    await cliJson(['message', '--role', 'assistant', '--text', 'two', '--session', 's'], opts());
    writeFileSync(join(root, 'src/app.ts'), 'later\n');
    const later = await cliJson(['checkpoint', '--session', 's'], opts());

    const conv = await cliJson<Restore>(['restore', c.message as string, '--conversation'], opts());
    expect(conv).toMatchObject({ mode: 'conversation', hidden: 2, safety: null, changed: [] });
    expect(read('src/app.ts')).toBe('later\n');
    const visible = await cliJson<{ messages: { text: string }[] }>(['log', '--session', 's'], opts());
    expect(visible.messages.map((m) => m.text)).toEqual(['one', 'Checkpoint']);
    const all = await cliJson<{ messages: { text: string; hidden: boolean }[] }>(
      ['log', '--session', 's', '--all'],
      opts(),
    );
    expect(all.messages.map((m) => m.hidden)).toEqual([false, false, true, true]);
    const sessions = await cliJson<{ id: string; messages: number }[]>(['sessions'], opts());
    expect(sessions.find((s) => s.id === 's')?.messages).toBe(2);

    await cliJson(['undo'], opts());
    expect((await cliJson<{ messages: unknown[] }>(['log', '--session', 's'], opts())).messages).toHaveLength(4);

    const both = await cliJson<Restore>(['restore', (c.hash as string).slice(0, 10), '--both'], opts());
    expect(both).toMatchObject({ mode: 'both', hidden: 2, changed: ['src/app.ts'] });
    expect(read('src/app.ts')).toBe('export const app = 1;\n');
    const st = await cliJson<{ canUndo: boolean; lastRestore: { restore: string; mode: string } }>(['status'], opts());
    expect(st).toMatchObject({ canUndo: true, lastRestore: { restore: both.restore, mode: 'both' } });

    await cliJson(['undo'], opts());
    expect(read('src/app.ts')).toBe('later\n');
    expect((await cliJson<{ messages: unknown[] }>(['log', '--session', 's'], opts())).messages).toHaveLength(4);
    // Recording continues on the chain after a rewind.
    const next = await cliJson(['checkpoint', '--session', 's'], opts());
    expect(next.hash).not.toBe(later.hash);
  });

  it('an excluded file in the way is left alone and reported as skipped', async () => {
    writeFileSync(join(root, 'src/dir-later.txt'), 'x\n');
    const c = await cliJson(['checkpoint'], opts());
    rmSync(join(root, 'src/dir-later.txt'));
    writeFileSync(join(root, '.retraceignore'), 'src/dir-later.txt\n');
    writeFileSync(join(root, 'src/dir-later.txt'), 'mine, excluded now\n');
    const r = await cliJson<Restore & { skipped?: { path: string }[] }>(
      ['restore', c.hash as string, '--code'],
      opts(),
    );
    expect(r.changed).toContain('.retraceignore');
    expect(r.changed).not.toContain('src/dir-later.txt');
    expect(r.skipped?.map((s) => s.path)).toEqual(['src/dir-later.txt']);
    expect(read('src/dir-later.txt')).toBe('mine, excluded now\n');
  });

  it('undo with nothing to undo: exit 1, E_NOTHING_TO_UNDO', async () => {
    const r = await runCli(['undo', '--json'], opts());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^retrace: nothing to undo/);
    expect(r.json).toMatchObject({ error: { code: 'E_NOTHING_TO_UNDO' } });
  });

  it('a project folder deleted by mistake: the error says its checkpoints are kept; made again, it is restored', async () => {
    const c = await cliJson<{ hash: string }>(['checkpoint'], opts());
    rmSync(root, { recursive: true });
    const status = await runCli(['status', '--cwd', root], { home });
    expect([status.code, status.stderr.trim()]).toEqual([
      1,
      `retrace: folder does not exist: ${root} (its sessions and checkpoints are kept: make the folder again, empty, to restore into it; if it was moved, \`retrace move ${root} NEW\` takes them along)`,
    ]);
    mkdirSync(root);
    const r = await cliJson<Restore>(['restore', c.hash, '--code'], opts());
    expect(r.changed).toContain('README.md');
    const since = await cliJson<{ files: unknown[] }>(['diff', c.hash], opts());
    expect(since.files).toEqual([]);
  });

  it('a file name with a newline is one quoted line for people, and as it is in JSON', async () => {
    const odd = 'two\nlines.txt';
    writeFileSync(join(root, odd), 'v1\n');
    const c = await cliJson<{ hash: string }>(['checkpoint'], opts());
    writeFileSync(join(root, odd), 'v2\n');
    await cliJson(['checkpoint'], opts());
    const diff = await runCli(['diff', c.hash], opts());
    expect(diff.stdout.split('\n')).toContain('M "two\\nlines.txt"  +1 -1');
    const restore = await runCli(['restore', c.hash, '--code'], opts());
    expect(restore.stdout.split('\n')).toContain('    "two\\nlines.txt"');
    const undo = await runCli(['undo', '--json'], opts());
    expect((undo.json as { changed: string[] }).changed).toEqual([odd]);
  });

  it('a file name that starts with a double quote is quoted too, so that it cannot pass for a quoted name', async () => {
    const quoted = '"a\\nb".txt'; // on disk: "a\nb".txt, which unquoted would read as the name a<newline>b
    writeFileSync(join(root, quoted), 'v1\n');
    const c = await cliJson<{ hash: string }>(['checkpoint'], opts());
    writeFileSync(join(root, quoted), 'v2\n');
    await cliJson(['checkpoint'], opts());
    const diff = await runCli(['diff', c.hash], opts());
    expect(diff.stdout.split('\n')).toContain(`M ${JSON.stringify(quoted)}  +1 -1`);
    expect(diff.stdout.split('\n')).toContain('M "\\"a\\\\nb\\".txt"  +1 -1');
  });
});
