import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execGit } from './exec';
import { shadowConfig } from './runner';

/**
 * Create a shadow repository: a bare-style directory (no .git inside the user's folder, ever) that is used
 * with an explicit --work-tree. An empty template dir means no sample hooks; hooksPath points at an empty dir.
 * Idempotent: re-running on an existing repository only re-asserts the config.
 */
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
  const settings: [string, string][] = [
    ['core.bare', 'false'],
    ...shadowConfig(emptyDir).map((c): [string, string] => {
      const i = c.indexOf('=');
      return [c.slice(0, i), c.slice(i + 1)];
    }),
  ];
  for (const [key, value] of settings) {
    await execGit(['config', '--file', path.join(gitDir, 'config'), key, value]);
  }
}
