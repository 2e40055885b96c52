/**
 * PRODUCT.md I11, first half: the data directory is its owner's alone. After every kind of write — a
 * checkpoint, a restore and its undo, an import, a hook call — every folder under a fresh data home is 0700
 * and no file has a group or other bit, whatever the umask (022, and 000 which hides nothing), also when the
 * data home already existed as 0755. Where the tests run as root, another user (nobody) then really tries to
 * read a session log and a shadow object, and cannot.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_BIN, cleanupTempDirs, cliEnv, makeWorkspace, tempDir } from '../helpers';
import { line, text } from '../integrations/claudeTranscript';

afterAll(cleanupTempDirs);

const SESSION = '0a11ce00-1b2c-4d3e-8f4a-5b6c7d8e9f01';
const NOBODY = { uid: 65534, gid: 65534 };

/** The CLI under a given umask (node cannot set a child's umask, the shell can). */
function cli(
  umask: string,
  args: string[],
  o: { home: string; cwd: string; input?: string; env?: Record<string, string | undefined> },
): unknown {
  const r = spawnSync('sh', ['-c', `umask ${umask} && exec "$@"`, 'sh', process.execPath, CLI_BIN, ...args], {
    cwd: o.cwd,
    env: cliEnv({ home: o.home, ...(o.env ? { env: o.env } : {}) }),
    input: o.input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`retrace ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : undefined;
}

/** Checkpoint, edit, checkpoint, restore, undo, import a transcript, one hook call. */
function everyKindOfWrite(umask: string, home: string): void {
  const ws = makeWorkspace({ 'app.js': "console.log('hi');\n", 'secret.key': 'PRIVATE\n' });
  chmodSync(join(ws, 'secret.key'), 0o600);
  const o = { home, cwd: ws };
  const first = cli(umask, ['checkpoint', '--json'], o) as { hash: string };
  writeFileSync(join(ws, 'app.js'), "console.log('hello');\n");
  cli(umask, ['checkpoint', '--json'], o);
  cli(umask, ['restore', first.hash, '--code', '--json'], o);
  cli(umask, ['undo', '--json'], o);
  writeFileSync(join(ws, 'app.js'), "console.log('hey');\n");
  cli(umask, ['diff', first.hash, '--json'], o); // a reader's own index (readers/)
  cli(umask, ['maintenance', '--force', '--json'], o); // the storage figure it caches

  const config = tempDir('retrace-claude-');
  const project = join(config, 'projects', ws.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(project, { recursive: true });
  const transcript = join(project, `${SESSION}.jsonl`);
  const ctx = { sessionId: SESSION, cwd: ws };
  const ts = new Date(Date.UTC(2025, 5, 1)).toISOString();
  writeFileSync(
    transcript,
    [
      line({ type: 'user', uuid: 'u1', parent: null, ts, content: text('my typed prompt') }, ctx),
      line({ type: 'assistant', uuid: 'a1', parent: 'u1', ts, content: text('ok') }, ctx),
    ].join('\n') + '\n',
  );
  const env = { CLAUDE_CONFIG_DIR: config, CLAUDE_PROJECT_DIR: undefined, RETRACE_HOOK_TRACE: '1' };
  cli(umask, ['import', 'claude-code', transcript, '--json'], { ...o, env });
  cli(umask, ['hook', 'claude-code'], {
    ...o,
    env,
    input: JSON.stringify({
      session_id: '0a11ce00-1b2c-4d3e-8f4a-5b6c7d8e9f02',
      transcript_path: transcript,
      cwd: ws,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'another typed prompt',
    }),
  });
}

/** Every entry under `dir` whose bits let anyone but the owner in: "path mode". */
function notPrivate(dir: string): { loose: string[]; files: string[] } {
  const loose: string[] = [];
  const files: string[] = [];
  const walk = (p: string): void => {
    const st = lstatSync(p);
    const mode = st.mode & 0o777;
    if (st.isDirectory()) {
      if (mode !== 0o700) loose.push(`${p} ${mode.toString(8)}`);
      for (const name of readdirSync(p)) walk(join(p, name));
    } else {
      files.push(p);
      if ((mode & 0o077) !== 0) loose.push(`${p} ${mode.toString(8)}`);
    }
  };
  walk(dir);
  return { loose, files };
}

/** A data home in a folder anyone may enter, so only its own bits keep others out. */
function openParent(): string {
  const parent = tempDir('retrace-private-');
  chmodSync(parent, 0o755);
  return parent;
}

function readableByNobody(file: string): boolean {
  return (
    spawnSync('setpriv', [`--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', 'cat', file]).status === 0
  );
}

describe('the data directory is private (I11)', () => {
  for (const umask of ['022', '000']) {
    it(`every folder 0700 and every file without group/other bits, umask ${umask}, fresh data home`, () => {
      const home = join(openParent(), 'data');
      everyKindOfWrite(umask, home);
      const { loose, files } = notPrivate(home);
      expect(files.some((f) => f.includes('/objects/'))).toBe(true);
      expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true);
      expect(files.some((f) => f.endsWith('hook.log'))).toBe(true);
      expect(files.some((f) => f.endsWith('/storage.json'))).toBe(true);
      expect(loose).toEqual([]);
    });
  }

  it('a data home that exists as 0755 is tightened to 0700 on first use, and what is made in it is private', () => {
    const home = join(openParent(), 'data');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    everyKindOfWrite('022', home);
    expect(notPrivate(home).loose).toEqual([]);
  });

  it('a hook call that records nothing (bad payload) still keeps a 0755 data home and its log private', () => {
    const home = join(openParent(), 'data');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);
    cli('022', ['hook', 'claude-code'], { home, cwd: makeWorkspace({ 'a.txt': 'a\n' }), input: 'not json' });
    const { loose, files } = notPrivate(home);
    expect(files.map((f) => f.slice(home.length))).toEqual(['/logs/hook.log']);
    expect(loose).toEqual([]);
  });

  it('another local user cannot read a session log nor an object of the shadow repository', (ctx) => {
    if (process.getuid?.() !== 0) ctx.skip('skipped: reading as another user needs root to switch users');
    const home = join(openParent(), 'data');
    everyKindOfWrite('022', home);
    const { files } = notPrivate(home);
    const log = files.find((f) => f.endsWith('.jsonl') && f.includes('/sessions/'))!;
    const object = files.find((f) => /\/objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(f) || f.endsWith('.pack'))!;
    expect(log).toBeTruthy();
    expect(object).toBeTruthy();
    // The same file opened up (0755 folders, 0644 file) is readable: the check itself works.
    const control = join(openParent(), 'control.txt');
    writeFileSync(control, 'x', { mode: 0o644 });
    expect(readableByNobody(control)).toBe(true);
    expect(readableByNobody(log)).toBe(false);
    expect(readableByNobody(object)).toBe(false);
  });
});
