/**
 * How the CLI talks: with --json exactly one JSON document on stdout; otherwise short lines for people.
 * Failures: one `retrace: …` line on stderr (and `{"error":{code,message}}` on stdout with --json);
 * exit 2 for usage errors, 1 for everything else.
 */
import { toErrorInfo, type ErrorInfo } from '../../shared/errors';

export class Output {
  constructor(readonly json: boolean) {}

  /** Print a command's result: the JSON value, or the human lines. */
  result(value: unknown, human: () => string | string[]): void {
    if (this.json) {
      process.stdout.write(JSON.stringify(value) + '\n');
    } else {
      const lines = human();
      const text = Array.isArray(lines) ? lines.join('\n') : lines;
      if (text !== '') process.stdout.write(text.endsWith('\n') ? text : text + '\n');
    }
  }

  /**
   * Progress of long work for a person at a terminal: one line on stderr, rewritten in place at most every
   * 100 ms and erased at the end. Nothing at all when stderr is not a terminal (scripts, hooks, tests).
   */
  progress(): { update: (p: { phase: string; done: number; total?: number }) => void; end: () => void } {
    const tty = process.stderr.isTTY === true;
    let last = 0;
    let shown = false;
    return {
      update: (p) => {
        const now = Date.now();
        if (!tty || now - last < 100) return;
        last = now;
        shown = true;
        const count = p.total ? `${p.done}/${p.total}` : p.done > 0 ? String(p.done) : '';
        process.stderr.write(`\r\x1b[Kretrace: ${p.phase} ${count}`);
      },
      end: () => {
        if (shown) process.stderr.write('\r\x1b[K');
      },
    };
  }

  /** A note for people (never on stdout in --json mode). */
  note(line: string): void {
    process.stderr.write(`retrace: ${line}\n`);
  }

  /** Report a failure and return the exit code. */
  fail(e: unknown): number {
    const info = toErrorInfo(e);
    writeFailure(info, this.json);
    return exitCodeFor(info);
  }
}

export function writeFailure(info: ErrorInfo, json: boolean): void {
  process.stderr.write(`retrace: ${info.message}\n`);
  if (json) process.stdout.write(JSON.stringify({ error: info }) + '\n');
  if (info.code === 'E_INTERNAL' && process.env.RETRACE_DEBUG) process.stderr.write('(set by RETRACE_DEBUG)\n');
}

export function exitCodeFor(info: ErrorInfo): number {
  return info.code === 'E_USAGE' ? 2 : 1;
}

/**
 * A path in a line for people: as it is, unless it holds a control character (a newline in a file name would
 * split the line in two) or starts with a double quote (it would read as quoted); then quoted with escapes, as
 * git shows such names.
 */
export function shownPath(p: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  return /[\x00-\x1f\x7f]/.test(p) || p.startsWith('"') ? JSON.stringify(p) : p;
}

export const short = (hash: string | null | undefined): string => (hash ? hash.slice(0, 7) : '-');

/** One line of a possibly multi-line text, cut for a terminal. */
export function firstLine(text: string, max = 72): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Bytes for people: B, KiB, MiB. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
