import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execGit } from './exec';
import { shadowConfig } from './runner';

/**
 * Create a shadow repository: a bare-style directory (no .git inside the user's folder, ever) that is used
 * with an explicit --work-tree. An empty template dir means no sample hooks; hooksPath points at an empty dir.
 * Idempotent and cheap: the config is written once per CONFIG_VERSION (every call also passes it with -c,
 * so the file only serves plain `git` runs such as gc). Re-writing it on every open cost 22 processes and
 * raced between concurrent readers for config.lock.
 */
const CONFIG_VERSION = '2';
const MARKER = `[retrace]\n\tconfigVersion = ${CONFIG_VERSION}\n`;

export async function initShadowRepo(gitDir: string, emptyDir: string): Promise<void> {
  await fs.mkdir(emptyDir, { recursive: true });
  const exists = await fs.stat(path.join(gitDir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await fs.mkdir(gitDir, { recursive: true });
    await execGit(['init', '--bare', '--quiet', `--template=${emptyDir}`, gitDir]);
  }
  const configFile = path.join(gitDir, 'config');
  const current = await fs.readFile(configFile, 'utf8').catch(() => '');
  if (current.includes(MARKER)) return;
  const settings: [string, string][] = [
    ['core.bare', 'false'],
    ...shadowConfig(emptyDir).map((c): [string, string] => {
      const i = c.indexOf('=');
      return [c.slice(0, i), c.slice(i + 1)];
    }),
  ];
  for (const [key, value] of settings) {
    await execGit(['config', '--file', configFile, key, value]);
  }
  // Last, so an interrupted init is redone by the next open.
  await execGit(['config', '--file', configFile, 'retrace.configVersion', CONFIG_VERSION]);
}
