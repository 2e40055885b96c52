/**
 * The command line a hook entry runs: `retrace hook AGENT` when `retrace` is on PATH (npm link / a global
 * install), otherwise the absolute `node` and `bin/retrace.js` of this installation, so the hook works from
 * whatever shell the agent starts. Every agent's install uses it.
 *
 * Outside Windows the line starts with `env NODE_EXTRA_CA_CERTS=`: Node 20 loads the certificates that
 * variable names, and its ~140 bundled root certificates with them, while it starts, before any of our code
 * runs (nodejs/node#40524) — 120 ms of CPU per call measured here, twice the rest of Node's start. Agents run
 * behind company proxies often have it set, and the hook makes no TLS connection (the hook server it starts
 * never gets the variable either: protocol.ts). Empty, Node skips it; `env` (POSIX) works in every shell an
 * agent may run the line with (sh, bash, zsh, fish, csh). Windows shells have no `env`.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';

export interface CommandOptions {
  env?: NodeJS.ProcessEnv;
  binPath?: string;
  nodePath?: string;
  /** Which shells will run the line (default: this machine's). */
  platform?: NodeJS.Platform;
}

export function retraceHookCommand(agent: string, opts: CommandOptions = {}): string {
  const env = opts.env ?? process.env;
  const prefix = (opts.platform ?? process.platform) === 'win32' ? '' : NO_EXTRA_CERTS;
  if (onPath('retrace', env.PATH ?? '')) return `${prefix}retrace hook ${agent}`;
  const bin = opts.binPath ?? currentBin();
  const node = opts.nodePath ?? process.execPath;
  return `${prefix}${shellQuote(node)} ${shellQuote(bin)} hook ${agent}`;
}

/** See the top of this file: the hook's Node starts without loading extra CA certificates. */
export const NO_EXTRA_CERTS = 'env NODE_EXTRA_CA_CERTS= ';

/** Is this hook command Retrace's hook for `agent` (any spelling: `retrace …`, `node …/retrace.js …`)? */
export function isRetraceHookCommand(command: unknown, agent: string): boolean {
  if (typeof command !== 'string') return false;
  const escaped = agent.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`retrace(\\.js)?["']?\\s+hook\\s+${escaped}(\\s|$)`).test(command);
}

function currentBin(): string {
  const argv1 = process.argv[1];
  if (argv1) {
    try {
      return realpathSync(argv1);
    } catch {
      return argv1;
    }
  }
  throw new RetraceError('E_INTERNAL', 'cannot tell where the retrace command is installed');
}

function onPath(name: string, path: string): boolean {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
