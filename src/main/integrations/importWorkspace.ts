/** What every importer does the same way: find the workspace it imports into, and read a file there. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RetraceError } from '../../shared/errors';
import { resolveWorkspace, type WorkspaceRef } from '../engine/workspace';
import { stripAnsi } from './details';

/**
 * The workspace: --cwd when given, else the folder the transcript names. The transcript's folder may be gone or
 * on another machine: then the error says how to point the import elsewhere.
 */
export async function importWorkspace(
  given: string | undefined,
  declared: string | null,
  dataHome: string,
  what: string,
): Promise<WorkspaceRef> {
  const cwd = given ?? declared;
  if (!cwd) throw new RetraceError('E_IMPORT', `the ${what} does not say its workspace; give one with --cwd`);
  return resolveWorkspace(cwd, { dataHome }).catch((e: unknown) => {
    if (!given && e instanceof RetraceError && (e.code === 'E_NOT_FOUND' || e.code === 'E_NOT_A_DIRECTORY'))
      throw new RetraceError(e.code, `${e.message} (the ${what}'s folder); give the workspace with --cwd`);
    throw e;
  });
}

/** A workspace file now: its text, null when it is not there, undefined when it cannot be read. */
export function readWorkspaceFile(root: string, rel: string): string | null | undefined {
  try {
    return readFileSync(join(root, rel), 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/** Tool output kept in a message: enough to read, not a second copy of a build log. */
const OUTPUT_LIMIT = 20_000;

/** A tool message's text: what ran, then what it printed without colour codes (cut at OUTPUT_LIMIT, saying so). */
export function toolText(head: string, raw: string | null): string {
  const output = raw && stripAnsi(raw);
  if (!output) return head;
  const cut =
    output.length > OUTPUT_LIMIT
      ? `${output.slice(0, OUTPUT_LIMIT)}\n… (${output.length - OUTPUT_LIMIT} more characters)`
      : output;
  return `${head}\n\n${cut.trimEnd()}`;
}
