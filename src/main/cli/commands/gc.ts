/**
 * `retrace gc [--keep-days N] [--max-bytes N] [--save]` → {"removed": [ID…], "storageBytes": N, "kept", "underBudget"}:
 * sessions age out oldest first (older than N days; then until storage is within N bytes); labelled sessions
 * and the one being recorded now stay. Flags override the workspace's saved budget; --save keeps them.
 */
import { RetraceError } from '../../../shared/errors';
import type { GcResult } from '../../../shared/model';
import { collectGarbage } from '../../usecases/storage';
import { str } from '../args';
import type { Command, Values } from '../command';
import { formatBytes } from '../output';

export const command: Command = {
  usage: 'gc [--keep-days N] [--max-bytes N] [--save]',
  options: { 'keep-days': { type: 'string' }, 'max-bytes': { type: 'string' }, save: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const flags = {
      ...optionalCount(ctx.values, 'keep-days', 'keepDays'),
      ...optionalCount(ctx.values, 'max-bytes', 'maxBytes'),
    };
    const res = await collectGarbage(await ctx.engine(), flags, { save: ctx.values.save === true });
    ctx.out.result(res, () => gcLines(res));
  },
};

/** A flag given as a whole number ≥ 0 (or "none", clearing a saved limit); anything else is a usage error. */
function optionalCount(values: Values, flag: string, key: 'keepDays' | 'maxBytes'): Record<string, number | null> {
  const v = str(values, flag);
  if (v === undefined) return {};
  if (v === 'none') return { [key]: null };
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new RetraceError('E_USAGE', `--${flag} must be a whole number (or none), not ${JSON.stringify(v)}`);
  return { [key]: Number(v) };
}

export function gcLines(res: GcResult): string[] {
  return [
    res.removed.length === 0 ? 'nothing removed' : `removed ${res.removed.join(', ')}`,
    ...res.kept.map((k) => `kept ${k.session}: ${k.reason}`),
    `storage ${formatBytes(res.storageBytes)}${res.underBudget ? '' : ' (still over the budget: the kept sessions alone exceed it)'}`,
  ];
}
