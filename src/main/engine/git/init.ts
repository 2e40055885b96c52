import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { GIT_SHARED_REPOSITORY, mkdirPrivate, writeFilePrivate } from '../privateFs';
import { execGit } from './exec';
import { shadowConfig } from './runner';

/**
 * Create a shadow repository: a bare-style directory (no .git inside the user's folder, ever) that is used
 * with an explicit --work-tree. An empty template dir means no sample hooks; hooksPath points at an empty dir.
 * Idempotent and cheap: the config is written once per CONFIG_VERSION (every call also passes it with -c,
 * so the file only serves plain `git` runs such as gc). Re-writing it on every open cost 22 processes and
 * raced between concurrent readers for config.lock.
 *
 * `--shared=0600`: git creates its own files with the process umask, so a 022 umask would leave objects
 * (copies of the user's private files) readable by everyone; with a fixed mode git makes every file 0600
 * (objects 0400) and every folder 0700 (PRODUCT.md I11).
 * `--object-format=sha1`: object ids are SHA-1 throughout (looseObject.ts, indexFile.ts, 40-hex checks), so
 * the format is pinned rather than left to git's default, which git 3 plans to change to SHA-256.
 */
const CONFIG_VERSION = '3';
/** Our settings, beside the config that includes them (a relative include.path is read from the config's folder). */
const SETTINGS_FILE = 'retrace-settings.config';
const MARKER = `[retrace]\n\tconfigVersion = ${CONFIG_VERSION}\n`;

export async function initShadowRepo(gitDir: string, emptyDir: string): Promise<void> {
  await mkdirPrivate(emptyDir);
  const exists = await fs.stat(path.join(gitDir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdirPrivate(gitDir);
    await execGit([
      'init',
      '--bare',
      '--quiet',
      `--template=${emptyDir}`,
      `--shared=${GIT_SHARED_REPOSITORY}`,
      '--object-format=sha1',
      gitDir,
    ]);
  }
  const configFile = path.join(gitDir, 'config');
  const current = await fs.readFile(configFile, 'utf8').catch(() => '');
  assertSha1(gitDir, current);
  if (current.includes(MARKER)) return;
  const settings: [string, string][] = [
    ['core.bare', 'false'],
    ...shadowConfig(emptyDir).map((c): [string, string] => {
      const i = c.indexOf('=');
      return [c.slice(0, i), c.slice(i + 1)];
    }),
  ];
  // One file of our own, included from the config (one `git config` instead of one per setting: ~30 processes
  // were most of a 1,000-file first checkpoint's git processes). Included last, it overrides what init wrote.
  await writeFilePrivate(path.join(gitDir, SETTINGS_FILE), configText(settings));
  if (!current.includes(SETTINGS_FILE))
    await execGit(['config', '--file', configFile, '--add', 'include.path', SETTINGS_FILE]);
  // Last, so an interrupted init is redone by the next open.
  await execGit(['config', '--file', configFile, 'retrace.configVersion', CONFIG_VERSION]);
}

/** `section.key = value` pairs as git config text; every value quoted, with git's escapes for \\ and ". */
export function configText(settings: readonly [string, string][]): string {
  const sections = new Map<string, string[]>();
  for (const [key, value] of settings) {
    const dot = key.lastIndexOf('.');
    const lines = sections.get(key.slice(0, dot)) ?? [];
    lines.push(`\t${key.slice(dot + 1)} = "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
    sections.set(key.slice(0, dot), lines);
  }
  return [...sections].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join('');
}

/**
 * A shadow repository in another object format (made by a newer git's default, or by hand) would make every
 * 40-hex id we compute wrong: refuse it with a clear error instead of reading it as damage to repair.
 */
export function assertSha1(gitDir: string, config: string): void {
  const format = objectFormatOf(config);
  if (format !== 'sha1')
    throw new RetraceError(
      'E_UNSUPPORTED',
      `the shadow repository ${gitDir} uses ${format} object ids; Retrace supports only sha1 (move it aside to start afresh)`,
    );
}

/** `extensions.objectFormat` of a git config file's text; git's default, sha1, when unset. */
export function objectFormatOf(config: string): string {
  let inExtensions = false;
  for (const line of config.split('\n')) {
    const section = /^\s*\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]/.exec(line);
    if (section) {
      inExtensions = section[1]!.toLowerCase() === 'extensions';
      continue;
    }
    const kv = /^\s*objectformat\s*=\s*"?([^"\s;#]+)/i.exec(line);
    if (inExtensions && kv) return kv[1]!.toLowerCase();
  }
  return 'sha1';
}
