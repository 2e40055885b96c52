/**
 * Test-only fault injection: with RETRACE_TEST_FAULTS=1 and RETRACE_FAULT=<step>, the process kills itself
 * with SIGKILL when it reaches that step, so the crash tests (I8) can stop a restore or checkpoint at an exact
 * moment. Without RETRACE_TEST_FAULTS=1 this is inert. Names are stable: the fault suite iterates FAULT_STEPS.
 */
export const FAULT_STEPS = [
  // the writer lock: its content written beside the lock file, not yet linked into place
  'lock:staged',
  // checkpoint (`checkpoint`, `message --checkpoint`, hooks): snapshot → commit → journal → append → update ref → clear
  'checkpoint:after-snapshot',
  'checkpoint:after-commit',
  'checkpoint:after-journal',
  'checkpoint:after-append',
  'checkpoint:after-ref',
  // restore and undo share one transaction:
  // safety snapshot → safety commit + ref → journal → apply files → visibility event → ledger → clear journal
  'restore:after-safety',
  'restore:after-journal',
  'restore:mid-apply', // half of the planned paths written (reached only when at least one file changes)
  'restore:mid-file', // a file's new content beside it and its old one linked as a side file, not yet renamed
  'restore:after-apply',
  'restore:after-rewind',
  'restore:after-ledger',
  'restore:after-clear',
  // recovery of an interrupted restore (the next writing command or `status`) must itself be re-runnable
  'recovery:after-rollback',
  'recovery:after-compensate',
] as const;

/**
 * Which operations reach each step. `restore:*` steps are reached by undo too (same transaction);
 * `restore:after-safety` and `restore:mid-apply` only when a file part exists / changes;
 * `restore:after-rewind` is reached by code-only restores too (the event is simply absent).
 */
export const FAULT_STEP_OPS: Readonly<
  Record<(typeof FAULT_STEPS)[number], readonly ('checkpoint' | 'restore' | 'undo' | 'recovery')[]>
> = {
  'lock:staged': ['checkpoint'],
  'checkpoint:after-snapshot': ['checkpoint'],
  'checkpoint:after-commit': ['checkpoint'],
  'checkpoint:after-journal': ['checkpoint'],
  'checkpoint:after-append': ['checkpoint'],
  'checkpoint:after-ref': ['checkpoint'],
  'restore:after-safety': ['restore', 'undo'],
  'restore:after-journal': ['restore', 'undo'],
  'restore:mid-apply': ['restore', 'undo'],
  'restore:mid-file': ['restore', 'undo'],
  'restore:after-apply': ['restore', 'undo'],
  'restore:after-rewind': ['restore', 'undo'],
  'restore:after-ledger': ['restore', 'undo'],
  'restore:after-clear': ['restore', 'undo'],
  'recovery:after-rollback': ['recovery'],
  'recovery:after-compensate': ['recovery'],
};

export type FaultStep = (typeof FAULT_STEPS)[number];

/** Whether `step` is the armed fault (used to split an operation so that a mid-way kill is possible). */
export function faultArmed(step: FaultStep): boolean {
  return process.env.RETRACE_TEST_FAULTS === '1' && process.env.RETRACE_FAULT === step;
}

export function fault(step: FaultStep): void {
  if (faultArmed(step)) process.kill(process.pid, 'SIGKILL');
}

/**
 * Test-only errno faults: with RETRACE_TEST_FAULTS=1 and RETRACE_FAULT_ERRNO=<ERRNO>@<point>[#<n>|#*], the n-th
 * time (default the first; `*` every time) this process reaches <point>, the step fails as the operating system
 * would fail it (ENOSPC, EACCES, EBUSY…), so the tests can fill a disk or hold a file open at an exact moment.
 */
export const ERRNO_FAULT_POINTS = ['apply:write-file', 'apply:rename'] as const;
export type ErrnoFaultPoint = (typeof ERRNO_FAULT_POINTS)[number];

const errnoHits = new Map<string, number>();

export function errnoFault(point: ErrnoFaultPoint, target: string): void {
  const spec = process.env.RETRACE_TEST_FAULTS === '1' ? process.env.RETRACE_FAULT_ERRNO : undefined;
  const m = spec ? /^([A-Z]+)@([a-z:-]+)(?:#(\d+|\*))?$/.exec(spec) : null;
  if (!m || m[2] !== point) return;
  const hit = (errnoHits.get(spec!) ?? 0) + 1;
  errnoHits.set(spec!, hit);
  if (m[3] !== '*' && hit !== Number(m[3] ?? 1)) return;
  throw Object.assign(new Error(`${m[1]}: injected fault at ${point}, '${target}'`), { code: m[1], path: target });
}

/** Tests that run the engine in-process start each case with fresh counts. */
export function resetErrnoFaults(): void {
  errnoHits.clear();
}

/**
 * Test-only in-process hooks (RETRACE_TEST_FAULTS=1): a test that runs the engine in its own process can act at
 * an exact moment of an apply — append to the file about to be replaced, hold it open across the rename — to
 * show that what another program writes there is never lost (I9).
 */
export const TEST_HOOK_POINTS = [
  'apply:before-write',
  // A file's turn to go into place: its content is written (the files of its group all are), the files before
  // it are in place.
  'apply:before-place',
  'apply:before-rename',
  'apply:after-rename',
  'apply:before-put-back',
  'apply:before-drop-created',
  // `retrace move`: the new folder's data folder set aside, the moved one not yet in its place.
  'move:after-aside',
] as const;
export type TestHookPoint = (typeof TEST_HOOK_POINTS)[number];
type TestHook = (target: string) => void | Promise<void>;
const hooks = new Map<TestHookPoint, TestHook>();

export function setTestHook(point: TestHookPoint, fn: TestHook | null): void {
  if (fn) hooks.set(point, fn);
  else hooks.delete(point);
}

export async function testHook(point: TestHookPoint, target: string): Promise<void> {
  if (process.env.RETRACE_TEST_FAULTS === '1') await hooks.get(point)?.(target);
}
