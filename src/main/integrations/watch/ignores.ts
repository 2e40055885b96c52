/**
 * What the watcher does not listen to: what a checkpoint never captures (excludes.ts: .git, node_modules,
 * secrets), the data home when it is inside the folder, and the folder's own top-level ignore rules
 * (.gitignore, .retraceignore) as far as they translate to @parcel/watcher's globs. Events there are dropped by
 * the native watcher, so they do not even wake the process. Rules that do not translate (a file with `!`
 * negations, nested .gitignore files) are left to the snapshot: a settle that changed nothing it captures
 * records no checkpoint (watcher.ts).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { isHardExcluded } from '../../engine/excludes';

export function watcherIgnores(root: string, dataHome: string): string[] {
  const out = [
    join(root, '.git'),
    join(root, 'node_modules'),
    '**/.git',
    '**/.git/**',
    '**/node_modules',
    '**/node_modules/**',
  ];
  const dataRel = relative(root, dataHome);
  if (dataRel !== '' && !dataRel.startsWith('..') && !isAbsolute(dataRel)) out.push(join(root, dataRel));
  for (const name of ['.gitignore', '.retraceignore']) out.push(...rulesAsGlobs(readRules(join(root, name))));
  return out;
}

/** True for a workspace-relative path ('/'-separated) that no checkpoint captures, whatever the watcher let by. */
export function isIgnoredEvent(rel: string, dataRel: string | null): boolean {
  if (rel === '' || rel.startsWith('../')) return true;
  if (dataRel !== null && (rel === dataRel || rel.startsWith(dataRel + '/'))) return true;
  return isHardExcluded(rel);
}

/** The data home relative to the root ('/'-separated), or null when it is outside. */
export function dataHomeInside(root: string, dataHome: string): string | null {
  const rel = relative(root, dataHome);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

function readRules(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    return [];
  }
}

/**
 * gitignore lines → globs on root-relative paths. A file with any negation is not translated at all: ignoring
 * a folder natively would hide the files a `!` line takes back.
 */
export function rulesAsGlobs(lines: string[]): string[] {
  const rules = lines.map((l) => l.replace(/(?<!\\)\s+$/, '')).filter((l) => l !== '' && !l.startsWith('#'));
  if (rules.some((l) => l.startsWith('!'))) return [];
  const globs: string[] = [];
  for (let rule of rules) {
    rule = rule.replace(/\/+$/, '');
    if (rule === '' || rule.includes('\\')) continue; // escapes: left to the snapshot
    const anchored = rule.includes('/');
    const base = anchored ? rule.replace(/^\/+/, '') : `**/${rule}`;
    if (base === '' || base === '**/**') continue;
    globs.push(base, `${base}/**`);
  }
  return globs;
}
