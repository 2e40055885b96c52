/**
 * Error codes shared by the engine, the CLI, IPC and the serve host.
 * A code is part of the public contract (CLI.md): add codes, never rename them.
 */
export const ERROR_CODES = [
  'E_USAGE', // unknown command or flag, missing or malformed argument
  'E_INVALID_INPUT', // a well-formed request whose values are not acceptable (bad id, `..` in a path)
  'E_NOT_FOUND', // the workspace folder does not exist
  'E_NOT_A_DIRECTORY', // the workspace path is a file
  'E_PROTECTED_DIR', // home, Desktop/Documents/Downloads, the filesystem root, the data directory
  'E_PATH_OUTSIDE_WORKSPACE', // a file path that escapes the workspace
  'E_UNKNOWN_CHECKPOINT',
  'E_AMBIGUOUS', // a hash prefix that names more than one checkpoint
  'E_UNKNOWN_SESSION',
  'E_UNKNOWN_MESSAGE',
  'E_LOCKED', // another writer held the workspace lock for longer than the bounded wait
  'E_GIT_MISSING',
  'E_GIT', // git failed in a way we did not expect; the message carries git's own words
  'E_UNREADABLE', // a file or folder of the workspace cannot be read
  'E_DATA_DIR', // the data directory cannot be created or written
  'E_CORRUPT', // the shadow repository or a log is damaged beyond automatic repair
  'E_NOTHING_TO_UNDO',
  'E_UNDO_CONFLICT', // a later restore, revert or undo (not undone) touched the same files or messages
  'E_UNKNOWN_RESTORE', // no restore, revert or undo with that id in this workspace's ledger
  'E_UNSUPPORTED', // not available on this host (e.g. a native folder dialog under `retrace serve`)
  'E_IMPORT', // an import source that cannot be read at all
  'E_PERMISSION', // the operating system refused to read or write a path (EACCES/EPERM); the message names it
  'E_NO_SPACE', // the disk is full (or would be): what is needed vs what is available
  'E_CHANGED_DURING_RESTORE', // a file changed while a restore ran; rolled back, nothing lost
  'E_FILE_BUSY', // a file is held open by another program (EBUSY, Windows); the message names it
  'E_PORT_IN_USE', // `retrace serve --port N`: another process listens on N
  'E_KEPT', // `forget` of a labelled session or one being recorded now (--force removes it all the same)
  'E_CONFLICT', // a revert whose lines a later step changed again: each file and its conflicted hunks
  'E_BINARY', // a text-only operation (blame) named a binary file
  'E_READ_ONLY', // a session pulled from a remote: its code can be restored, its conversation not changed
  'E_NO_REMOTE', // push/pull without a REMOTE in a folder that has no git `origin`
  'E_REMOTE', // the git remote could not be reached or refused the refs; the message carries git's words
  'E_INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
}

/** The one error type the engine throws on purpose. Anything else is a bug and maps to E_INTERNAL. */
export class RetraceError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RetraceError';
    this.code = code;
  }
}

export function isRetraceError(e: unknown): e is RetraceError {
  return e instanceof RetraceError;
}

/** Map any thrown value to the wire form. Messages stay one line. */
export function toErrorInfo(e: unknown): ErrorInfo {
  if (isRetraceError(e)) return { code: e.code, message: oneLine(e.message) };
  const message = e instanceof Error ? e.message : String(e);
  return { code: 'E_INTERNAL', message: oneLine(message) };
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').trim();
}
