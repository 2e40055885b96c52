/**
 * Checkpoint labels. One label per checkpoint commit, kept in the shadow repository itself as the ref
 * `refs/retrace/labels/<full commit hash>` pointing at an annotated tag whose message is the label: a labelled
 * checkpoint is therefore always reachable (I5), gc keeps it, and a push of refs/retrace/ carries it. Writing
 * takes the writer lock (the caller's); reading is one `for-each-ref` and never waits for it.
 */
import { existsSync, type Stats } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
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

/** The labels last read per shadow repository, with the state of the files their refs live in. */
const known = new Map<string, { fingerprint: string; labels: Map<string, string> }>();

/**
 * Checkpoint hash → label. A reader: no lock, and no shadow repository is created where none exists yet. The
 * timeline asks on every page, so git is asked again only when the label refs' files changed (a ref written by
 * git is renamed into place, a new inode; packing moves them into packed-refs): no wait in the git queue.
 */
export async function readLabels(ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>): Promise<Map<string, string>> {
  const gitDir = join(ctx.ws.dir, 'shadow.git');
  if (!existsSync(gitDir)) return new Map();
  const fingerprint = await refFilesFingerprint(gitDir);
  const cached = known.get(gitDir);
  if (cached && cached.fingerprint === fingerprint) return cached.labels;
  const labels = new Map<string, string>();
  // Most folders have no label at all: then the first timeline page of a window needs no git (nor the shadow
  // repository opened) before it shows.
  const tags = (await anyLabelRef(gitDir)) ? await (await ctx.shadow()).tagSubjects(LABEL_PREFIX) : [];
  for (const { ref, subject } of tags) {
    const hash = ref.slice(LABEL_PREFIX.length);
    if (/^[0-9a-f]{40}$/.test(hash) && subject !== '') labels.set(hash, subject);
  }
  known.set(gitDir, { fingerprint, labels });
  return labels;
}

/** Whether a label ref may exist: an entry in the loose refs' folder, or the prefix anywhere in packed-refs. */
async function anyLabelRef(gitDir: string): Promise<boolean> {
  if ((await readdir(join(gitDir, LABEL_PREFIX)).catch(() => [])).length > 0) return true;
  const packed = await readFile(join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
  return packed.includes(LABEL_PREFIX);
}

async function refFilesFingerprint(gitDir: string): Promise<string> {
  const id = (st: Stats | null) => (st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-');
  const dir = join(gitDir, LABEL_PREFIX);
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  const loose = await Promise.all(names.map(async (n) => `${n}=${id(await stat(join(dir, n)).catch(() => null))}`));
  return `${loose.join(',')}|${id(await stat(join(gitDir, 'packed-refs')).catch(() => null))}`;
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
