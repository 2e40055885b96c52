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

/** People may name a file by its absolute path inside the workspace; everything else is left for the engine to judge. */
export function relativeToRoot(root: string, p: string): string {
  if (!isAbsolute(p)) return p;
  const rel = relative(root, p);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? p : rel;
}
