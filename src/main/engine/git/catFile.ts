import type { GitRunner } from './runner';

/** Read many blobs in one process. Bytes stay bytes. Missing ids map to undefined. */
export async function readBlobs(git: GitRunner, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  const unique = [...new Set(ids)];
  if (unique.length === 0) return result;
  const { stdout } = await git.exec(['cat-file', '--batch'], { stdin: unique.join('\n') + '\n' });
  let pos = 0;
  while (pos < stdout.length) {
    const nl = stdout.indexOf(0x0a, pos);
    if (nl < 0) break;
    const header = stdout.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    const [id, type, sizeText] = header.split(' ');
    if (type === 'missing' || sizeText === undefined || id === undefined) continue;
    const size = Number(sizeText);
    result.set(id, Buffer.from(stdout.subarray(pos, pos + size)));
    pos += size + 1; // content is followed by a newline
  }
  return result;
}

export async function blobSizes(git: GitRunner, ids: readonly string[]): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (ids.length === 0) return result;
  const { stdout } = await git.exec(['cat-file', '--batch-check'], { stdin: [...new Set(ids)].join('\n') + '\n' });
  for (const line of stdout.toString('utf8').split('\n')) {
    const [id, type, size] = line.split(' ');
    if (id && type !== 'missing' && size) result.set(id, Number(size));
  }
  return result;
}

/** The ids of `ids` the object store does not have (any type: `cat-file --batch-check`, as blobSizes asks). */
export async function missingObjects(git: GitRunner, ids: readonly string[]): Promise<string[]> {
  const present = await blobSizes(git, ids);
  return [...new Set(ids)].filter((id) => !present.has(id));
}
