/**
 * A throw-away git directory that borrows the shadow repository's objects (objects/info/alternates) and has its
 * own detached HEAD. Some commands only start from HEAD (git 2.39's `blame --contents` refuses any other start),
 * and the shadow's own HEAD belongs to the writer: this view lets a reader point HEAD anywhere without the lock
 * and without writing a byte into the shadow repository. Removed when `fn` returns.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GitRunner } from './runner';

export interface DetachedView {
  git: GitRunner;
  /** Point the view's HEAD at a commit of the shadow repository. */
  setHead(commit: string): Promise<void>;
}

export async function withDetachedView<T>(
  shadow: { gitDir: string; workTree: string; hooksDir: string },
  head: string,
  fn: (view: DetachedView) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'retrace-view-'));
  try {
    await mkdir(path.join(dir, 'objects', 'info'), { recursive: true });
    await mkdir(path.join(dir, 'refs'));
    await writeFile(path.join(dir, 'HEAD'), `${head}\n`); // git knows a git directory by its HEAD
    await writeFile(path.join(dir, 'objects', 'info', 'alternates'), path.join(shadow.gitDir, 'objects') + '\n');
    const git = new GitRunner({ gitDir: dir, workTree: shadow.workTree, hooksDir: shadow.hooksDir });
    return await fn({ git, setHead: (commit) => writeFile(path.join(dir, 'HEAD'), `${commit}\n`) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
