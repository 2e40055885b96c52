import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { ignoredAmong } from '../git/checkIgnore';
import type { GitRunner } from '../git/runner';

/**
 * git's own walk stops at a directory holding a `.git` (a nested repository, a submodule, a worktree) and
 * prints it as `dir/`. We walk those in JS, one level at a time: skip every `.git` (never opened, never
 * followed), never follow symlinks (a link is a file to us), and ask git which entries the ignore rules
 * exclude, one check-ignore process per level. Once a file of such a directory is in the shadow index, git's
 * walk enters the directory by itself next time. A folder whose path is past PATH_MAX cannot be opened: it is
 * returned in `tooLong` for the snapshot to report.
 */
export async function walkUntrackedDirs(
  git: GitRunner,
  root: string,
  dirs: readonly string[],
  isExcluded: (rel: string) => boolean,
): Promise<{ files: string[]; tooLong: string[] }> {
  const files: string[] = [];
  const tooLong: string[] = [];
  let level = dirs.map((d) => d.replace(/\/+$/, ''));
  while (level.length > 0) {
    const fileEntries: string[] = [];
    const dirEntries: string[] = [];
    for (const dir of level) {
      let entries;
      try {
        entries = await fs.readdir(path.join(root, dir), { withFileTypes: true });
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue; // vanished meanwhile
        if (code === 'ENAMETOOLONG') {
          tooLong.push(dir);
          continue;
        }
        throw new RetraceError('E_UNREADABLE', `cannot read folder ${dir}: ${code ?? (e as Error).message}`);
      }
      for (const e of entries) {
        if (e.name.toLowerCase() === '.git') continue;
        const rel = `${dir}/${e.name}`;
        if (isExcluded(rel)) continue;
        if (e.isDirectory()) dirEntries.push(rel);
        else if (e.isFile() || e.isSymbolicLink()) fileEntries.push(rel);
        // sockets, fifos and devices cannot be checkpointed
      }
    }
    const ignored = await ignoredAmong(git, [...fileEntries, ...dirEntries.map((d) => d + '/')]);
    for (const f of fileEntries) if (!ignored.has(f)) files.push(f);
    level = dirEntries.filter((d) => !ignored.has(d + '/') && !ignored.has(d));
  }
  return { files, tooLong };
}
