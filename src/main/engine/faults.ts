/**
 * Test-only fault injection: with RETRACE_TEST_FAULTS=1 and RETRACE_FAULT=<step>, the process kills itself
 * with SIGKILL when it reaches that step, so the crash tests (I8) can stop a restore or checkpoint at an exact
 * moment. Without RETRACE_TEST_FAULTS=1 this is inert. Names are stable: the fault suite iterates FAULT_STEPS.
 */
export const FAULT_STEPS = [
  // checkpoint: snapshot → commit → journal → append message → update ref → clear journal
  'checkpoint:after-snapshot',
  'checkpoint:after-commit',
  'checkpoint:after-journal',
  'checkpoint:after-append',
  'checkpoint:after-ref',
  // restore / undo: safety snapshot → safety commit+ref → journal → apply files → rewind event → ledger → clear
  'restore:after-safety',
  'restore:after-journal',
  'restore:mid-apply', // half of the planned paths written
  'restore:after-apply',
  'restore:after-rewind',
  'restore:after-ledger',
  'restore:after-clear',
  // recovery itself can be interrupted and must be re-runnable
  'recovery:after-rollback',
  'recovery:after-compensate',
] as const;

export type FaultStep = (typeof FAULT_STEPS)[number];

/** Whether `step` is the armed fault (used to split an operation so that a mid-way kill is possible). */
export function faultArmed(step: FaultStep): boolean {
  return process.env.RETRACE_TEST_FAULTS === '1' && process.env.RETRACE_FAULT === step;
}

export function fault(step: FaultStep): void {
  if (faultArmed(step)) process.kill(process.pid, 'SIGKILL');
}
