/**
 * Checkpoint labels. One label per checkpoint commit, kept in the shadow repository itself as the ref
 * `refs/retrace/labels/<full commit hash>` pointing at an annotated tag whose message is the label: a labelled
 * checkpoint is therefore always reachable (I5), gc keeps it, and a push of refs/retrace/ carries it. Writing
 * takes the writer lock (the caller's); reading is one `for-each-ref` and never waits for it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RetraceError } from '../../shared/errors';
import type { WorkspaceContext } from './context';

export const LABEL_PREFIX = 'refs/retrace/labels/';
/** Characters (code points); a label names a checkpoint at a glance, it is no commit message. */
export const LABEL_MAX = 200;
const TAG_NAME = 'retrace-label';

export function labelRef(hash: string): string {
  return LABEL_PREFIX + hash;
}

/** The label as stored: one line, trimmed. Empty, or longer than LABEL_MAX: E_INVALID_INPUT. */
export function normalizeLabel(text: string): string {
  // One line: the tag's subject is the label, and the timeline row has one line for it.
  // eslint-disable-next-line no-control-regex
  const one = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  if (one === '') throw new RetraceError('E_INVALID_INPUT', 'a label needs some text');
  const length = [...one].length;
  if (length > LABEL_MAX)
    throw new RetraceError('E_INVALID_INPUT', `a label is at most ${LABEL_MAX} characters (this one has ${length})`);
  return one;
}

/** Checkpoint hash → label. A reader: no lock, and no shadow repository is created where none exists yet. */
export async function readLabels(ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  if (!existsSync(join(ctx.ws.dir, 'shadow.git'))) return labels;
  for (const { ref, subject } of await (await ctx.shadow()).tagSubjects(LABEL_PREFIX)) {
    const hash = ref.slice(LABEL_PREFIX.length);
    if (/^[0-9a-f]{40}$/.test(hash) && subject !== '') labels.set(hash, subject);
  }
  return labels;
}

/** Set (text) or remove (null) the label of checkpoint `hash`. The caller holds the writer lock. */
export async function writeLabelLocked(
  ctx: Pick<WorkspaceContext, 'shadow'>,
  hash: string,
  text: string | null,
): Promise<void> {
  const shadow = await ctx.shadow();
  const ref = labelRef(hash);
  if (text === null) {
    if (await shadow.readRef(ref)) await shadow.deleteRef(ref);
    return;
  }
  await shadow.updateRef(ref, await shadow.makeTag(hash, TAG_NAME, text));
}
