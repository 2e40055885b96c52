import { spawnSync } from 'node:child_process';
import { promises as fs, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeWorkspace, tempDir } from '../../../../test/helpers';

afterAll(cleanupTempDirs);

const here = path.dirname(fileURLToPath(import.meta.url));
const asRoot = process.getuid?.() === 0;

/**
 * Permission checks mean nothing to root, so when the tests run as root the snapshot runs in a child process
 * as `nobody`; otherwise in a child as ourselves. Either way a real permission error meets the real engine.
 */
async function snapshotInChild(
  root: string,
  home: string,
  openDirs: string[] = [root],
): Promise<{ code?: string; message?: string; ok?: boolean }> {
  const script = path.join(tempDir('retrace-child-'), 'snap.mts');
  writeFileSync(
    script,
    `import { resolveWorkspace } from ${JSON.stringify(path.join(here, '../workspace.ts'))};
import { ShadowRepo } from ${JSON.stringify(path.join(here, 'index.ts'))};
const [root, home] = process.argv.slice(2);
try {
  const ws = await resolveWorkspace(root, { dataHome: home });
  const repo = await ShadowRepo.open(ws);
  const { tree } = await repo.snapshotTree();
  console.log(JSON.stringify({ ok: true, tree }));
} catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
`,
  );
  for (const d of [path.dirname(script), ...openDirs, home]) await fs.chmod(d, 0o777);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, root, home], {
    encoding: 'utf8',
    cwd: path.join(here, '../../../..'),
    env: { ...process.env, HOME: path.dirname(script) },
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describe('unreadable files and folders (I7)', () => {
  it('an unreadable file fails the snapshot with E_UNREADABLE naming it', async () => {
    const root = makeWorkspace({ 'ok.txt': 'x\n', 'sub/secret.txt': 'y\n' });
    await fs.chmod(path.join(root, 'sub'), 0o755);
    await fs.chmod(path.join(root, 'sub/secret.txt'), 0o000);
    const res = await snapshotInChild(root, tempDir('retrace-home-'));
    expect(res.code).toBe('E_UNREADABLE');
    expect(res.message).toContain('sub/secret.txt');
  });

  it('an unreadable folder fails the snapshot instead of silently leaving it out', async () => {
    const root = makeWorkspace({ 'ok.txt': 'x\n', 'closed/inner.txt': 'y\n' });
    await fs.chmod(path.join(root, 'closed'), 0o000);
    const res = await snapshotInChild(root, tempDir('retrace-home-'));
    expect(res.code).toBe('E_UNREADABLE');
    expect(res.message).toContain('closed');
  });

  it('an unreadable workspace folder is refused by resolveWorkspace', async () => {
    const outer = makeWorkspace({ 'inner/x.txt': 'x\n' });
    await fs.chmod(path.join(outer, 'inner'), 0o000);
    const res = await snapshotInChild(path.join(outer, 'inner'), tempDir('retrace-home-'), [outer]);
    expect(res.code).toBe('E_UNREADABLE');
  });

  it('a readable folder snapshots fine in the same setup (the check can pass)', async () => {
    const root = makeWorkspace({ 'ok.txt': 'x\n' });
    const res = await snapshotInChild(root, tempDir('retrace-home-'));
    expect(res.ok).toBe(true);
  });
});
