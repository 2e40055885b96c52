import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * A resident child process (cat-file, diff-tree, the sync shell) keeps Node's event loop alive only while one of
 * its answers is awaited: idle, it never holds a CLI run open after its work is done.
 */
export function holdEventLoop(child: ChildProcessWithoutNullStreams, busy: boolean): void {
  for (const h of [child, child.stdin, child.stdout, child.stderr] as { ref(): void; unref(): void }[])
    if (busy) h.ref();
    else h.unref();
}
