import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Bytes the files under `dir` take (a walk; a missing folder is 0, a file vanishing mid-walk is skipped). */
export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await dirBytes(p);
    else total += (await fs.lstat(p).catch(() => null))?.size ?? 0;
  }
  return total;
}
