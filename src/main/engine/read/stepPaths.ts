/**
 * The files some recorded step changed, along the session chains: what an attribution export needs to look at
 * (a file no step ever changed is all baseline). Root checkpoints are left out: their "changes" are the folder
 * as it was before anything was recorded.
 */
import type { WorkspaceContext } from '../context';
import { withDetachedView } from '../git/detachedView';
import { viewOf } from './blame';

export async function pathsChangedBySteps(
  ctx: Pick<WorkspaceContext, 'ws' | 'shadow'>,
  tips: string[],
): Promise<string[]> {
  if (tips.length === 0) return [];
  return withDetachedView(await viewOf(ctx), tips[0]!, async ({ git }) => {
    const roots = (await git.raw(['rev-list', '--max-parents=0', ...tips])).split('\n').filter(Boolean);
    const out = await git.exec(['log', '--format=', '--name-only', '-z', '--no-renames', ...tips, '--not', ...roots]);
    const names = out.stdout
      .toString('utf8')
      .split('\0')
      .map((n) => n.replace(/^\n+/, ''))
      .filter(Boolean);
    return [...new Set(names)].sort();
  });
}
