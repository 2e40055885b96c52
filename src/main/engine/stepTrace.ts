/**
 * Where a hook call's time goes, step by step (issue 15: the hook must cost ≤ 30 ms). Off unless the hook
 * runs with RETRACE_HOOK_TRACE set: then its hook.log line ends with e.g. `steps lock=0.4 snapshot=6.1 …`.
 * Per async call chain (AsyncLocalStorage), so the hook server's background work is never counted in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<[string, number][]>();

/** Run `fn` collecting the steps it times; `steps` is '' when none were timed. */
export async function traceSteps<T>(fn: () => Promise<T>): Promise<{ value: T; steps: string }> {
  const list: [string, number][] = [];
  const value = await current.run(list, fn);
  return { value, steps: list.map(([name, ms]) => `${name}=${ms.toFixed(1)}`).join(' ') };
}

/** Time one step of the traced call (a plain call when nothing is traced). */
export async function step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const list = current.getStore();
  if (!list) return fn();
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    list.push([name, performance.now() - t0]);
  }
}

/** A step whose start and end are in different places (taking and releasing a lock): from `since` until now. */
export function noteStep(name: string, since: number): void {
  current.getStore()?.push([name, performance.now() - since]);
}
