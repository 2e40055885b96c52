/**
 * What a restore transaction learns between its safety snapshot and its journal (transaction.ts): what each planned
 * path holds now (I9's identities), the exact modes it will need for an undo (I11), the new contents' sizes (the
 * free-space check) with the first batch of contents asked for. Nothing is written: the modes are written with the
 * safety commit, once the snapshot has confirmed the plan.
 *
 * The same work may run ahead, while the safety snapshot still scans the folder (`prepareAhead`): planned from the
 * tree the last snapshot named, which the new one names again unless the folder changed (issue 15: the scan is a
 * git process, and this process only waited for it). The transaction takes it only when the snapshot names that
 * very tree. Identities taken during the scan are still I9's: a path untouched since before the snapshot began
 * holds what the snapshot reads; one touched since is hashed now and compared with the tree (fileIdentity.ts).
 */
import type { WorkspaceContext } from '../context';
import type { Expectation } from '../shadow/fileIdentity';
import { batchEnd, type ApplyOptions, type RestorePlan } from '../shadow/restore';
import type { ShadowRepo } from '../shadow/ShadowRepo';
import { step } from '../stepTrace';
import { captureIdentities } from './fileIdentity';
import { assertFreeSpace } from './freeSpace';
import { captureModes, type ModeRecord } from './modes';
import type { Attic } from '../shadow/attic';

export interface Prepared {
  /** The safety snapshot's tree the plan goes from. */
  fromTree: string;
  plan: RestorePlan;
  expect: Map<string, Expectation>;
  /** What the apply need not ask git again: the plan's entries, the blob sizes, the first batch's contents. */
  known: Required<Pick<ApplyOptions, 'entries' | 'blobSizes' | 'readAhead'>>;
  /** The exact modes of the planned paths and their folders, for the modes file (modes.ts). */
  modes: ModeRecord;
}

interface PrepareInput {
  ctx: WorkspaceContext;
  shadow: ShadowRepo;
  plan: RestorePlan;
  fromTree: string;
  /** When the safety snapshot began (captureIdentities hashes what changed since). */
  startedNs: bigint;
  /** Run ahead of the snapshot: no repair may start from here (ShadowRepo.sizesAhead). */
  ahead?: boolean;
  /** The transaction's attic (attic.ts): contents it holds are renamed in, not read, so none is read ahead. */
  attic?: Pick<Attic, 'holds'> | null;
}

export async function prepare(input: PrepareInput): Promise<Prepared> {
  const { ctx, shadow, plan, fromTree, startedNs } = input;
  const planned = plan.steps.map((s) => s.path);
  const writes = plan.steps.filter((s) => s.action === 'write' && s.blob).map((s) => s.blob!);
  // Asked now, answered by the resident reader while the disk is looked at (identities, modes); a failure is
  // reported where it is awaited, below.
  const sizesAsked = input.ahead ? shadow.sizesAhead(writes) : shadow.blobSizes(writes);
  sizesAsked.catch(() => {});
  const was = new Map(plan.steps.filter((s) => s.was).map((s) => [s.path, s.was!]));
  const expect = await step('identities', () =>
    captureIdentities(ctx.ws.root, planned, was, startedNs, ctx.ws.caseInsensitive, shadow.placedLately),
  );
  // The planned paths' own modes as the identities just saw them; their folders looked at once each.
  const modes = await step('modes', () => captureModes(ctx.ws.root, planned, expect));
  const sizes = await step('sizes', () => sizesAsked);
  await step('freeSpace', () => assertFreeSpace(ctx.ws.root, sizes));
  const blobSizes = new Map(writes.map((id, i) => [id, sizes[i]!]));
  // The first batch's contents are read while the steps up to the apply run (the reader is a process of its own),
  // but not those an earlier restore kept in the attic: those files are renamed back in (an undo reads none).
  const attic = input.attic;
  const toRead = attic
    ? plan.steps.filter((s) => s.action === 'write' && s.blob && !attic.holds(s.path, s.blob)).map((s) => s.blob!)
    : writes;
  const ahead = toRead.slice(
    0,
    batchEnd(toRead, (id) => blobSizes.get(id) ?? 0),
  );
  return {
    fromTree,
    plan,
    expect,
    known: { entries: plan.entries, blobSizes, readAhead: shadow.readAhead(ahead) },
    modes,
  };
}

/**
 * `prepare` from the last snapshot's tree, begun before this snapshot is taken; null when there is no such tree
 * or anything failed (the transaction then prepares from its snapshot, and reports what fails there). Never throws.
 */
export async function prepareAhead(
  input: Omit<PrepareInput, 'plan' | 'fromTree' | 'ahead'> & { codeTree: string; paths?: string[] },
): Promise<Prepared | null> {
  const made = await input.shadow.planAhead(input.codeTree, input.paths);
  if (!made) return null;
  return prepare({ ...input, plan: made.plan, fromTree: made.from, ahead: true }).catch(() => null);
}
