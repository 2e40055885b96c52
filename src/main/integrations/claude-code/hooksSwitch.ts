/**
 * Whether Claude Code will run the hooks `retrace install claude-code` wrote. A settings file may turn hooks off:
 * `disableAllHooks: true` in the user's, the project's or the personal project settings leaves only managed hooks,
 * and managed settings (an organisation's policy) may allow none but their own (`allowManagedHooksOnly`) or none at
 * all. An install that says only "added" leaves a person waiting for checkpoints that never come. Managed settings
 * are read where Claude Code documents them on Linux and macOS.
 */
import { join } from 'node:path';
import { readSettingsObject, type InstallScope } from '../hooks/hooksFile';
import { claudeConfigDir } from './paths';

const MANAGED: Partial<Record<NodeJS.Platform, string>> = {
  linux: '/etc/claude-code/managed-settings.json',
  darwin: '/Library/Application Support/ClaudeCode/managed-settings.json',
};

/** The settings file and key that keep Claude Code from running this install's hooks, or null. */
export function claudeHooksTurnedOff(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv; managedSettings?: string },
): { file: string; key: string } | null {
  const managed = opts.managedSettings ?? MANAGED[process.platform];
  const policy = managed ? readSettingsObject(managed) : null;
  if (managed && policy?.disableAllHooks === true) return { file: managed, key: 'disableAllHooks: true' };
  if (managed && policy?.allowManagedHooksOnly === true) return { file: managed, key: 'allowManagedHooksOnly: true' };
  const layers = [join(claudeConfigDir(opts.env ?? process.env), 'settings.json')];
  if (scope === 'project')
    layers.push(join(opts.cwd, '.claude', 'settings.json'), join(opts.cwd, '.claude', 'settings.local.json'));
  for (const file of layers)
    if (readSettingsObject(file)?.disableAllHooks === true) return { file, key: 'disableAllHooks: true' };
  return null;
}
