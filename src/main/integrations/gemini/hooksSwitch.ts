/**
 * Whether Gemini CLI will run the hooks `retrace install gemini` wrote. Hooks are on by default
 * (`hooksConfig.enabled`, Gemini CLI's configuration page), but settings may turn them all off
 * (`hooksConfig.enabled: false`, or the older `tools.enableHooks: false`) or turn off hooks by name
 * (`hooksConfig.disabled`, the older `hooks.disabled`: `/hooks disable retrace` writes it). The project's
 * `.gemini/settings.json` outranks the user's for a switch; the name lists of both apply. An install that says
 * only "added" leaves a person waiting for checkpoints that never come.
 */
import { join } from 'node:path';
import { readSettingsObject, type InstallScope } from '../hooks/hooksFile';
import { obj } from '../hooks/payload';
import { geminiDir } from './paths';

/** Why Gemini CLI would not run a hook named `name` where this install's hooks run (file and setting), or null. */
export function geminiHooksTurnedOff(
  scope: InstallScope,
  name: string,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): { file: string; key: string } | null {
  const layers = [join(geminiDir(opts.env), 'settings.json')];
  if (scope === 'project') layers.unshift(join(opts.cwd, '.gemini', 'settings.json'));
  const settings = layers.map((file) => ({ file, doc: readSettingsObject(file) }));
  for (const { file, doc } of settings) {
    const hooksConfig = obj(doc?.hooksConfig);
    const hooks = obj(doc?.hooks);
    for (const [list, key] of [
      [hooksConfig?.disabled, 'hooksConfig.disabled'],
      [hooks?.disabled, 'hooks.disabled'],
    ] as const)
      if (Array.isArray(list) && list.includes(name)) return { file, key: `${key} lists "${name}"` };
  }
  for (const { file, doc } of settings) {
    const on = obj(doc?.hooksConfig)?.enabled ?? obj(doc?.tools)?.enableHooks;
    if (typeof on === 'boolean') {
      if (on) return null;
      const key = obj(doc?.hooksConfig)?.enabled === false ? 'hooksConfig.enabled' : 'tools.enableHooks';
      return { file, key: `${key} is false` };
    }
  }
  return null;
}
