/**
 * `retrace push` / `retrace pull`: two data homes (two people) share a session through a bare repository and
 * through a file:// URL. Real CLI, real git remotes in temp folders.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, errorCode, gitAt, runCli, shadowDir, tempDir, tempHome } from '../helpers';

const hasSsh = spawnSync('ssh', ['-V']).status === 0; // skipped without an ssh client: nothing to run
const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
/** Every object a repository holds, loose or packed. */
const objectCount = (gitDir: string) =>
  gitAt(gitDir, ['cat-file', '--batch-all-objects', '--batch-check']).split('\n').filter(Boolean).length;
const allRefs = (gitDir: string) => gitAt(gitDir, ['for-each-ref', '--format=%(objectname) %(refname)']);

interface Step {
  session: string;
  message: string;
  hash: string;
}

let alice: { home: string; cwd: string };
let bob: { home: string; cwd: string };
let bare: string;
let steps: Step[];

beforeAll(async () => {
  // Alice's project is a git repository of her own, with a branch, a tag, and `origin` at the bare repository.
  bare = tempDir('retrace-bare-');
  git(bare, ['init', '-q', '--bare']);
  const aliceRoot = tempDir('retrace-alice-');
  git(aliceRoot, ['init', '-q', '-b', 'main']);
  git(aliceRoot, ['config', 'user.name', 'Alice Example']);
  git(aliceRoot, ['config', 'user.email', 'alice@example.com']);
  writeFileSync(join(aliceRoot, 'app.ts'), 'export const version = 1;\n');
  git(aliceRoot, ['add', '.']);
  git(aliceRoot, ['commit', '-qm', 'initial']);
  git(aliceRoot, ['tag', 'v1']);
  git(aliceRoot, ['remote', 'add', 'origin', bare]);
  alice = { home: tempHome(), cwd: aliceRoot };
  bob = { home: tempHome(), cwd: tempDir('retrace-bob-') };

  const step = (role: string, text: string) =>
    cliJson<Step>(['message', '--role', role, '--text', text, '--checkpoint', '--session', 'shared-1'], alice);
  steps = [await step('user', 'Bump the version')];
  writeFileSync(join(aliceRoot, 'app.ts'), 'export const version = 2;\n');
  steps.push(await step('tool', 'Edit app.ts'));
  // A label (an annotated tag under refs/retrace/labels/, as `retrace label` makes them) on the agent's step.
  gitAt(shadowDir(alice.home, aliceRoot), ['tag', '-a', '-m', 'good state', 'retrace-label-tmp', steps[1]!.hash]);
  const shadow = shadowDir(alice.home, aliceRoot);
  const tagObject = gitAt(shadow, ['rev-parse', 'refs/tags/retrace-label-tmp']).trim();
  gitAt(shadow, ['update-ref', 'refs/retrace/labels/good-state', tagObject]);
  gitAt(shadow, ['update-ref', '-d', 'refs/tags/retrace-label-tmp']);
});
afterAll(cleanupTempDirs);

describe('push and pull through a bare repository', () => {
  let userRefsBefore: string;

  it('push (default REMOTE: the folder’s origin) sends the chain, the log and the labels, and only refs/retrace/*', async () => {
    userRefsBefore = allRefs(join(alice.cwd, '.git'));
    const r = await cliJson<{ pushed: string[]; remote: string }>(['push'], alice);
    expect(r).toEqual({ pushed: ['shared-1'], remote: bare });
    const remoteRefs = allRefs(bare)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ')[1]);
    expect(remoteRefs.sort()).toEqual([
      'refs/retrace/labels/good-state',
      'refs/retrace/logs/shared-1',
      'refs/retrace/sessions/shared-1',
    ]);
    expect(gitAt(bare, ['rev-parse', 'refs/retrace/sessions/shared-1']).trim()).toBe(steps[1]!.hash);
    // The user's own repository: not a ref changed (the remote got no branch, no tag either).
    expect(allRefs(join(alice.cwd, '.git'))).toBe(userRefsBefore);
  });

  it('pushing twice sends nothing new', async () => {
    const before = objectCount(bare);
    const refsBefore = allRefs(bare);
    const r = await cliJson<{ pushed: string[] }>(['push', bare], alice);
    expect(r.pushed).toEqual([]);
    expect(objectCount(bare)).toBe(before);
    expect(allRefs(bare)).toBe(refsBefore);
  });

  it('pull brings the session in read-only, saying who recorded it, with its log and diffs readable', async () => {
    const r = await cliJson<{ pulled: string[]; remote: string }>(['pull', bare], bob);
    expect(r).toEqual({ pulled: ['shared-1'], remote: bare });
    const sessions = await cliJson<{ id: string; readOnly?: boolean; recordedBy?: string }[]>(['sessions'], bob);
    expect(sessions).toEqual([
      expect.objectContaining({ id: 'shared-1', readOnly: true, recordedBy: 'Alice Example <alice@example.com>' }),
    ]);
    const log = await cliJson<{ messages: { id: string; text: string; hash: string | null }[] }>(
      ['log', '--session', 'shared-1'],
      bob,
    );
    expect(log.messages.map((m) => [m.id, m.text, m.hash])).toEqual(
      steps.map((s, i) => [s.message, i === 0 ? 'Bump the version' : 'Edit app.ts', s.hash]),
    );
    const file = await cliJson<{ before: string; after: string }>(
      ['diff', steps[0]!.hash, steps[1]!.hash, '--file', 'app.ts'],
      bob,
    );
    expect(file).toMatchObject({ before: 'export const version = 1;\n', after: 'export const version = 2;\n' });
    // The label came along.
    expect(gitAt(shadowDir(bob.home, bob.cwd), ['rev-parse', 'refs/retrace/labels/good-state^{commit}']).trim()).toBe(
      steps[1]!.hash,
    );
  });

  it('a pulled conversation cannot be appended to or rewound; its code can be restored', async () => {
    const append = await runCli(
      ['message', '--session', 'shared-1', '--role', 'user', '--text', 'mine', '--json'],
      bob,
    );
    expect(append.code).toBe(1);
    expect(errorCode(append)).toBe('E_READ_ONLY');
    expect(append.stderr).toMatch(/^retrace: .*read-only/);
    const rewind = await runCli(['restore', steps[0]!.message, '--conversation', '--json'], bob);
    expect(errorCode(rewind)).toBe('E_READ_ONLY');

    const code = await cliJson<{ changed: string[] }>(['restore', steps[1]!.hash, '--code'], bob);
    expect(code.changed).toContain('app.ts');
    expect(readFileSync(join(bob.cwd, 'app.ts'), 'utf8')).toBe('export const version = 2;\n');

    // Bob's own recording goes to a session of his own, never into the pulled one.
    const mine = await cliJson<Step>(['checkpoint'], bob);
    expect(mine.session).not.toBe('shared-1');
    // ...and his folder's history starts anew: his first checkpoint does not continue from Alice's steps.
    expect(gitAt(shadowDir(bob.home, bob.cwd), ['rev-list', '--parents', '-n', '1', mine.hash]).trim()).toBe(mine.hash);
  });

  it('a later push carries the new steps; pulling again brings them, and then nothing', async () => {
    writeFileSync(join(alice.cwd, 'app.ts'), 'export const version = 3;\n');
    const next = await cliJson<Step>(
      ['message', '--role', 'assistant', '--text', 'Version 3', '--checkpoint', '--session', 'shared-1'],
      alice,
    );
    expect((await cliJson<{ pushed: string[] }>(['push', bare, '--session', 'shared-1'], alice)).pushed).toEqual([
      'shared-1',
    ]);
    expect((await cliJson<{ pulled: string[] }>(['pull', bare], bob)).pulled).toEqual(['shared-1']);
    const log = await cliJson<{ messages: { hash: string | null }[] }>(['log', '--session', 'shared-1'], bob);
    expect(log.messages.at(-1)!.hash).toBe(next.hash);
    expect((await cliJson<{ pulled: string[] }>(['pull', bare], bob)).pulled).toEqual([]);
    // Alice pulling her own session back changes nothing: it stays hers, writable.
    expect((await cliJson<{ pulled: string[] }>(['pull', bare], alice)).pulled).toEqual([]);
    const again = await cliJson<Step>(
      ['message', '--session', 'shared-1', '--role', 'user', '--text', 'still mine'],
      alice,
    );
    expect(again.session).toBe('shared-1');
  });
});

describe("push to the user's own repository", () => {
  it('adds only refs/retrace/* there: branches, tags and HEAD stay as they were', async () => {
    const gitDir = join(alice.cwd, '.git');
    const before = allRefs(gitDir);
    const head = git(alice.cwd, ['rev-parse', 'HEAD']);
    const status = git(alice.cwd, ['status', '--porcelain']);
    const r = await cliJson<{ pushed: string[] }>(['push', alice.cwd, '--session', 'shared-1'], alice);
    expect(r.pushed).toEqual(['shared-1']);
    const after = allRefs(gitDir).split('\n').filter(Boolean);
    const added = after.filter((l) => !before.includes(l));
    expect(added.map((l) => l.split(' ')[1]).sort()).toEqual([
      'refs/retrace/labels/good-state',
      'refs/retrace/logs/shared-1',
      'refs/retrace/sessions/shared-1',
    ]);
    expect(after.filter((l) => !l.includes(' refs/retrace/')).join('\n') + '\n').toBe(before);
    expect(git(alice.cwd, ['rev-parse', 'HEAD'])).toBe(head);
    expect(git(alice.cwd, ['status', '--porcelain'])).toBe(status);
  });

  it('an unknown --session is refused; a session with no checkpoint has nothing to send', async () => {
    const unknown = await runCli(['push', bare, '--session', 'nobody', '--json'], alice);
    expect(unknown.code).toBe(1);
    expect(errorCode(unknown)).toBe('E_UNKNOWN_SESSION');
    await cliJson(['message', '--session', 'talk-only', '--role', 'user', '--text', 'no checkpoint'], alice);
    expect((await cliJson<{ pushed: string[] }>(['push', bare, '--session', 'talk-only'], alice)).pushed).toEqual([]);
  });
});

describe('push and pull through a file:// URL', () => {
  it('works the same, and says which remote', async () => {
    const dest = tempDir('retrace-file-remote-');
    git(dest, ['init', '-q', '--bare']);
    const url = `file://${dest}`;
    expect(await cliJson(['push', url], alice)).toEqual({ pushed: ['shared-1'], remote: url });
    expect((await cliJson<{ pushed: string[] }>(['push', url], alice)).pushed).toEqual([]);
    const carol = { home: tempHome(), cwd: tempDir('retrace-carol-') };
    expect(await cliJson(['pull', url], carol)).toEqual({ pulled: ['shared-1'], remote: url });
    const files = await cliJson<{ files: { path: string; status: string }[] }>(
      ['diff', steps[0]!.hash, steps[1]!.hash],
      carol,
    );
    expect(files.files).toEqual([expect.objectContaining({ path: 'app.ts', status: 'modified' })]);
  });
});

describe("a remote named in the folder's repository", () => {
  it('`retrace push NAME` and `pull NAME` use that remote, as git would', async () => {
    const dest = tempDir('retrace-named-remote-');
    git(dest, ['init', '-q', '--bare']);
    git(alice.cwd, ['remote', 'add', 'backup', dest]);
    try {
      expect(await cliJson(['push', 'backup'], alice)).toEqual({ pushed: ['shared-1'], remote: dest });
      expect(objectCount(dest)).toBeGreaterThan(0);
      const dave = { home: tempHome(), cwd: tempDir('retrace-dave-') };
      git(dave.cwd, ['init', '-q']);
      git(dave.cwd, ['remote', 'add', 'team', dest]);
      expect(await cliJson(['pull', 'team'], dave)).toEqual({ pulled: ['shared-1'], remote: dest });
    } finally {
      git(alice.cwd, ['remote', 'remove', 'backup']);
    }
  });
});

describe('remotes that do not work', () => {
  it('no REMOTE and no git origin: E_NO_REMOTE; an unreachable remote: E_REMOTE', async () => {
    const none = await runCli(['push', '--json'], bob);
    expect(none.code).toBe(1);
    expect(errorCode(none)).toBe('E_NO_REMOTE');
    const missing = await runCli(['pull', join(tempDir(), 'no-such-repo'), '--json'], bob);
    expect(missing.code).toBe(1);
    expect(errorCode(missing)).toBe('E_REMOTE');
  });

  it.skipIf(!hasSsh)('an ssh remote that cannot be reached fails with E_REMOTE, never waits for a prompt', async () => {
    const r = await runCli(['push', 'ssh://retrace-test@127.0.0.1:1/repo.git', '--json'], {
      ...alice,
      timeoutMs: 30_000,
    });
    expect(r.signal).toBeNull();
    expect(errorCode(r)).toBe('E_REMOTE');
  });
});
