/** Small helpers for reading parsed flags with the contract's usage errors. */
import { isAbsolute, relative } from 'node:path';
import { RetraceError } from '../../shared/errors';
import { ROLES, type Role } from '../../shared/model';
import type { Values } from './command';

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function required(values: Values, name: string, usage: string): string {
  const v = str(values, name);
  if (v === undefined) throw new RetraceError('E_USAGE', `missing --${name}; usage: retrace ${usage}`);
  return v;
}

export function strings(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
}

export function role(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new RetraceError('E_USAGE', `--role must be one of ${ROLES.join(', ')}, not ${JSON.stringify(value)}`);
  }
  return value as Role;
}

/** The agents `retrace install` and `retrace uninstall` know. */
export type HookAgent = 'claude-code' | 'codex' | 'gemini';

/** `install` / `uninstall`: the agent named and the settings scope (--user, the default, or --project). */
export function agentAndScope(
  agent: string | undefined,
  values: Values,
  usage: string,
): { agent: HookAgent; scope: 'user' | 'project' } {
  if (agent !== 'claude-code' && agent !== 'codex' && agent !== 'gemini')
    throw new RetraceError('E_USAGE', `unknown integration ${JSON.stringify(agent)}; usage: retrace ${usage}`);
  if (values.user === true && values.project === true)
    throw new RetraceError('E_USAGE', `give --user or --project, not both; usage: retrace ${usage}`);
  return { agent, scope: values.project === true ? 'project' : 'user' };
}

/** People may name a file by its absolute path inside the workspace; everything else is left for the engine to judge. */
export function relativeToRoot(root: string, p: string): string {
  if (!isAbsolute(p)) return p;
  const rel = relative(root, p);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? p : rel;
}
