/**
 * Work started from an Electron event handler has no caller to await it: a failure must be reported where
 * it happens, never left as an unhandled rejection (which Node turns into a crash or a silent warning).
 */

export type Report = (what: string, error: unknown) => void;

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One line on stderr: the app's log when started from a terminal or by the OS. */
export const reportToStderr: Report = (what, error) => {
  console.error(`retrace: ${what}: ${messageOf(error)}`);
};

/** Run `work` to completion in the background; a rejection goes to `report`. */
export function settle(work: Promise<unknown>, what: string, report: Report = reportToStderr): void {
  work.catch((error: unknown) => report(what, error));
}
