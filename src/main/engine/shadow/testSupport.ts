/** Test-only helpers for the shadow tests: a workspace ref over a temp folder and a listing of the tree. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../../../test/helpers';
import type { WorkspaceRef } from '../workspace';
import { resolveWorkspace } from '../workspace';
import { ShadowRepo } from './ShadowRepo';

export async function openTemp(root: string, sizeCap?: number): Promise<{ ws: WorkspaceRef; repo: ShadowRepo }> {
  const ws = await resolveWorkspace(root, { dataHome: tempDir('retrace-home-') });
  const repo = await ShadowRepo.open(ws, sizeCap === undefined ? {} : { sizeCap });
  return { ws, repo };
}

/** path → mode of every entry of a tree, via the repo's own readFile-free listing. */
export async function treeListing(repo: ShadowRepo, tree: string): Promise<Map<string, string>> {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('git', [`--git-dir=${repo.gitDir}`, 'ls-tree', '-r', '-z', tree], {
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    maxBuffer: 256 << 20,
  }).toString('utf8');
  const m = new Map<string, string>();
  for (const rec of out.split('\0')) {
    if (!rec) continue;
    const tab = rec.indexOf('\t');
    m.set(rec.slice(tab + 1), rec.slice(0, tab).split(' ')[0]!);
  }
  return m;
}

/** Full recursive listing of a folder (names, types, dir mtimes) to prove nothing was created or renamed. */
export async function listing(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const st = await fs.lstat(p);
      const rel = path.relative(root, p);
      out.push(`${rel} ${e.isDirectory() ? 'd' : e.isSymbolicLink() ? 'l' : 'f'} ${st.mtimeMs} ${st.ino}`);
      if (e.isDirectory()) await walk(p);
    }
  };
  await walk(root);
  return out.sort();
}
