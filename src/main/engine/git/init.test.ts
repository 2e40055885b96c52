/** The shadow repository's config: every setting of shadowConfig in effect for a plain `git` run (gc, repair). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { gitEnv } from './env';
import { configText, initShadowRepo } from './init';
import { shadowConfig } from './runner';

afterAll(cleanupTempDirs);

const effective = (gitDir: string, key: string): string =>
  execFileSync('git', ['config', '--file', path.join(gitDir, 'config'), '--includes', '--get', key], {
    env: gitEnv(),
  })
    .toString()
    .trim();

describe('initShadowRepo', () => {
  it('puts every shadow setting in effect (the included file overrides what git init wrote), idempotently', async () => {
    const home = tempDir('retrace-init-');
    const gitDir = path.join(home, 'shadow.git');
    const hooks = path.join(home, 'empty "hooks" \\ dir');
    await initShadowRepo(gitDir, hooks);
    await initShadowRepo(gitDir, hooks);
    for (const c of shadowConfig(hooks)) {
      const i = c.indexOf('=');
      expect(effective(gitDir, c.slice(0, i)), c).toBe(c.slice(i + 1));
    }
    expect(effective(gitDir, 'core.bare')).toBe('false');
    const config = readFileSync(path.join(gitDir, 'config'), 'utf8');
    expect(config.match(/retrace-settings\.config/g)).toHaveLength(1);
    // git itself reads it as a repository: no complaint about the config.
    execFileSync('git', [`--git-dir=${gitDir}`, 'rev-parse', '--git-dir'], { env: gitEnv() });
  });

  it('quotes values with git config escapes', () => {
    expect(configText([['a.b', 'x "y" \\ z']])).toBe('[a]\n\tb = "x \\"y\\" \\\\ z"\n');
  });
});
