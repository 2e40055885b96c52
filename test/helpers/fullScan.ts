import { ShadowRepo } from '../../src/main/engine/shadow';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { tempHome } from './tmp';

/**
 * The tree a plain full scan of `root` gives: a fresh shadow repository in another data home, fast paths off.
 * What every warm or hinted snapshot must agree with.
 */
export async function fullScanTree(root: string): Promise<string> {
  process.env.RETRACE_FAST_PATHS = '0';
  try {
    const repo = await ShadowRepo.open(await resolveWorkspace(root, { dataHome: tempHome() }));
    return (await repo.snapshotTree()).tree;
  } finally {
    delete process.env.RETRACE_FAST_PATHS;
  }
}
