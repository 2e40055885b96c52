/**
 * Whether Codex will run the hooks `retrace install codex` wrote. Hooks are on by default (Codex's "Hooks" page,
 * developers.openai.com/codex/hooks), but a config layer may turn them off with `[features] hooks = false`, or
 * `codex_hooks = false`, the older name Codex still reads. A more specific layer wins: the project's
 * `.codex/config.toml` over the user's. An install that says only "added" leaves a person waiting for checkpoints
 * that never come. TOML read by smol-toml.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { InstallScope } from '../hooks/hooksFile';
import { codexHome } from './paths';

/** The config file and key that turn Codex's hooks off where this install's hooks would run, or null. */
export function codexHooksTurnedOff(
  scope: InstallScope,
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): { file: string; key: string } | null {
  const layers = [join(codexHome(opts.env), 'config.toml')];
  if (scope === 'project') layers.unshift(join(opts.cwd, '.codex', 'config.toml'));
  for (const file of layers) {
    const setting = hooksSetting(file);
    if (setting) return setting.on ? null : { file, key: setting.key };
  }
  return null;
}

/** What one config file says about hooks; null when it says nothing (or cannot be read: Codex reports that). */
function hooksSetting(file: string): { on: boolean; key: string } | null {
  let features: unknown;
  try {
    features = (parse(readFileSync(file, 'utf8')) as { features?: unknown }).features;
  } catch {
    return null;
  }
  if (typeof features !== 'object' || features === null) return null;
  for (const key of ['hooks', 'codex_hooks']) {
    const value = (features as Record<string, unknown>)[key];
    if (typeof value === 'boolean') return { on: value, key: `[features] ${key} = ${value}` };
  }
  return null;
}
