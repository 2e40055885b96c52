import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetraceError } from '../../shared/errors';
import { resolveWorkspace, slug } from './workspace';

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof RetraceError) return e.code;
    throw e;
  }
}

describe('resolveWorkspace (I7)', () => {
  let tmp: string;
  let dataHome: string;
  beforeAll(async () => {
    tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'retrace-ws-')));
    dataHome = path.join(tmp, 'data');
    await fs.mkdir(path.join(tmp, 'proj'));
    await fs.writeFile(path.join(tmp, 'file.txt'), 'x');
    await fs.symlink(path.join(tmp, 'proj'), path.join(tmp, 'link'));
  });
  afterAll(async () => {
    await fs.chmod(path.join(tmp, 'locked'), 0o755).catch(() => {});
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it.skipIf(!existsSync('/proc/self') || !existsSync('/dev/shm'))(
    "refuses the kernel's folders (/proc, /sys, /dev) but not a project in /dev/shm, a plain tmpfs (Linux)",
    async () => {
      for (const sys of ['/proc/self', '/sys/kernel', '/dev', '/dev/pts'])
        expect(await code(resolveWorkspace(sys, { dataHome })), sys).toBe('E_PROTECTED_DIR');
      const shm = await fs.mkdtemp('/dev/shm/retrace-ws-');
      try {
        expect((await resolveWorkspace(shm, { dataHome })).root).toBe(shm);
      } finally {
        await fs.rm(shm, { recursive: true, force: true });
      }
    },
  );

  it('resolves relative paths, symlinks and trailing slashes to one identity', async () => {
    const a = await resolveWorkspace('proj', { cwd: tmp, dataHome });
    const b = await resolveWorkspace(path.join(tmp, 'link') + '/', { dataHome });
    const c = await resolveWorkspace(path.join(tmp, 'proj') + '//', { dataHome });
    expect(a.root).toBe(path.join(tmp, 'proj'));
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(a.id).toMatch(/^proj-[0-9a-f]{32}$/);
    expect(a.dir).toBe(path.join(dataHome, 'workspaces', a.id));
    const json = JSON.parse(await fs.readFile(path.join(a.dir, 'workspace.json'), 'utf8'));
    expect(json).toMatchObject({ root: a.root, id: a.id });
    expect(typeof json.createdAt).toBe('string');
  });

  it('a folder that was a workspace and is gone: E_NOT_FOUND saying its checkpoints are kept', async () => {
    await fs.mkdir(path.join(tmp, 'was'));
    await resolveWorkspace(path.join(tmp, 'was'), { dataHome });
    await fs.rmdir(path.join(tmp, 'was'));
    const gone = await resolveWorkspace(path.join(tmp, 'was'), { dataHome }).catch((e: RetraceError) => e);
    expect(gone).toMatchObject({ code: 'E_NOT_FOUND' });
    expect((gone as RetraceError).message).toContain('its sessions and checkpoints are kept');
    const never = await resolveWorkspace(path.join(tmp, 'never'), { dataHome }).catch((e: RetraceError) => e);
    expect((never as RetraceError).message).toBe(`folder does not exist: ${path.join(tmp, 'never')}`);
  });

  it('gives different folders with the same name different ids', async () => {
    await fs.mkdir(path.join(tmp, 'x', 'proj'), { recursive: true });
    const a = await resolveWorkspace(path.join(tmp, 'proj'), { dataHome });
    const b = await resolveWorkspace(path.join(tmp, 'x', 'proj'), { dataHome });
    expect(a.id).not.toBe(b.id);
  });

  it('refuses bad input with the right code', async () => {
    expect(await code(resolveWorkspace(path.join(tmp, 'missing'), { dataHome }))).toBe('E_NOT_FOUND');
    expect(await code(resolveWorkspace(path.join(tmp, 'file.txt'), { dataHome }))).toBe('E_NOT_A_DIRECTORY');
    expect(await code(resolveWorkspace(path.join(tmp, 'file.txt', 'sub'), { dataHome }))).toBe('E_NOT_A_DIRECTORY');
    expect(await code(resolveWorkspace('/', { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace('///', { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace('~', { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace(os.homedir() + '/', { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace(path.dirname(os.homedir()), { dataHome }))).toBe('E_PROTECTED_DIR');
    await fs.mkdir(path.join(dataHome, 'inner'), { recursive: true });
    expect(await code(resolveWorkspace(dataHome, { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace(path.join(dataHome, 'inner'), { dataHome }))).toBe('E_PROTECTED_DIR');
    // a symlink to a protected folder is the protected folder
    await fs.symlink(dataHome, path.join(tmp, 'datalink'));
    expect(await code(resolveWorkspace(path.join(tmp, 'datalink'), { dataHome }))).toBe('E_PROTECTED_DIR');
    expect(await code(resolveWorkspace('', { dataHome }))).toBe('E_NOT_FOUND');
  });

  it('refuses protected folders under a fake home', async () => {
    const home = path.join(tmp, 'home');
    await fs.mkdir(path.join(home, 'Documents'), { recursive: true });
    const old = process.env.HOME;
    process.env.HOME = home;
    try {
      expect(await code(resolveWorkspace(path.join(home, 'Documents/'), { dataHome }))).toBe('E_PROTECTED_DIR');
      expect(await code(resolveWorkspace('~/Documents', { dataHome }))).toBe('E_PROTECTED_DIR');
      expect(await code(resolveWorkspace(home, { dataHome }))).toBe('E_PROTECTED_DIR');
      await fs.mkdir(path.join(home, 'code'));
      expect(await code(resolveWorkspace('~/code', { dataHome }))).toBe('ok');
    } finally {
      process.env.HOME = old;
    }
  });

  it.skipIf(process.getuid?.() === 0)('refuses an unreadable folder', async () => {
    await fs.mkdir(path.join(tmp, 'locked'));
    await fs.chmod(path.join(tmp, 'locked'), 0o000);
    expect(await code(resolveWorkspace(path.join(tmp, 'locked'), { dataHome }))).toBe('E_UNREADABLE');
  });

  it('reports an unwritable data home as E_DATA_DIR', async () => {
    expect(await code(resolveWorkspace(path.join(tmp, 'proj'), { dataHome: path.join(tmp, 'file.txt', 'd') }))).toBe(
      'E_DATA_DIR',
    );
  });

  it('slugs names', () => {
    expect(slug('My Project!')).toBe('my-project');
    expect(slug('ünïcödé')).toBe('unicode');
    expect(slug('***')).toBe('folder');
  });
});
