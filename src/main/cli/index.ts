/**
 * `retrace` — entry of the CLI bundle (bin/retrace.js calls main). Finds the command, parses its flags
 * strictly with node:util parseArgs, runs it, and turns any failure into the contract's one-line error and
 * exit code (CLI.md "Common rules"). Commands live one per file under ./commands and load lazily.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RetraceError, toErrorInfo } from '../../shared/errors';
import { resolveDataHome } from '../engine/dataHome';
import { resolveWorkspace, type WorkspaceRef } from '../engine/workspace';
import type { WorkspaceEngine } from '../engine/workspaceEngine';
import type { Command, CommandContext, OptionSpec, Values } from './command';
import { COMMANDS, DEFAULT_COMMAND } from './commands/index';
import { exitCodeFor, Output, writeFailure } from './output';

/** Flags every command accepts. */
export const COMMON_OPTIONS: OptionSpec = {
  json: { type: 'boolean' },
  cwd: { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};
const VALUE_FLAGS = new Set(['--cwd', '--data-dir']);

/** What the caller supplies instead of this process's own (the hook client and server, see ./hookServer). */
export interface CliIO {
  /** The whole of stdin, already read. */
  stdin?: string;
  /** Who runs the command on the caller's behalf ("server"); the hook's trace line says so. */
  via?: string;
}

export async function main(argv: string[], io: CliIO = {}): Promise<number> {
  const json = argv.includes('--json');
  try {
    return await dispatch(argv, json, io);
  } catch (e) {
    const info = toErrorInfo(e);
    writeFailure(info, json);
    return exitCodeFor(info);
  }
}

async function dispatch(argv: string[], json: boolean, io: CliIO): Promise<number> {
  const at = commandIndex(argv);
  const name = at < 0 ? undefined : argv[at]!;
  const rest = at < 0 ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)];

  if (name === 'help' || (name === undefined && (argv.includes('--help') || argv.includes('-h')))) {
    const topic = name === 'help' ? rest.find((a) => !a.startsWith('-')) : undefined;
    if (topic && COMMANDS[topic]) return run(topic, ['--help'], json, io);
    process.stdout.write(helpText());
    return 0;
  }
  if (name === undefined && (argv.includes('--version') || argv.includes('-V'))) {
    const { VERSION } = await import('./version');
    const { BUILD_ID } = await import('./hookServer/protocol');
    if (json) process.stdout.write(JSON.stringify({ version: VERSION, build: BUILD_ID }) + '\n');
    else process.stdout.write(`retrace ${VERSION} (build ${BUILD_ID})\n`);
    return 0;
  }
  if (name === undefined) {
    if (DEFAULT_COMMAND) return run(DEFAULT_COMMAND, argv, json, io);
    process.stderr.write(helpText());
    return 2;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    // `retrace DIR` opens the app on that folder, once the launcher is registered.
    if (
      DEFAULT_COMMAND &&
      (name.includes('/') || name.startsWith('.') || name.startsWith('~') || existsSync(resolve(name)))
    ) {
      return run(DEFAULT_COMMAND, argv, json, io);
    }
    throw new RetraceError('E_USAGE', `unknown command: ${name} (see retrace --help)`);
  }
  return run(name, rest, json, io);
}

async function run(name: string, args: string[], json: boolean, io: CliIO): Promise<number> {
  const { command } = await COMMANDS[name]!.load();
  const parsed = parse(name, command, args);
  const values = parsed.values as Values;
  if (values.help) {
    process.stdout.write(`usage: retrace ${command.usage}\n       ${COMMANDS[name]!.summary}\n`);
    return 0;
  }
  const { min, max } = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const what =
      parsed.positionals.length < min
        ? 'missing argument'
        : `unexpected argument ${JSON.stringify(parsed.positionals[max])}`;
    throw new RetraceError('E_USAGE', `${what}; usage: retrace ${command.usage}`);
  }
  const ctx = context(name, values, parsed.positionals, json, io);
  return (await command.run(ctx)) ?? 0;
}

function parse(name: string, command: Command, args: string[]) {
  try {
    return parseArgs({
      args,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    // Node's messages run on with advice about '--'; the first sentence names the problem.
    const first = msg.split(/\.\s/)[0]!.replace(/\.$/, '');
    throw new RetraceError('E_USAGE', `${name}: ${first}; usage: retrace ${command.usage}`);
  }
}

function context(name: string, values: Values, positionals: string[], json: boolean, io: CliIO): CommandContext {
  const cwd = typeof values.cwd === 'string' ? values.cwd : '.';
  const dataDir = typeof values['data-dir'] === 'string' ? values['data-dir'] : undefined;
  let home: string | undefined;
  let ws: Promise<WorkspaceRef> | undefined;
  let engine: Promise<WorkspaceEngine> | undefined;
  const ctx: CommandContext = {
    json,
    cwd,
    dataDir,
    out: new Output(json),
    values,
    positionals,
    ...(io.via !== undefined ? { via: io.via } : {}),
    stdin: () => (io.stdin !== undefined ? Promise.resolve(io.stdin) : readStdin()),
    dataHome: () => (home ??= resolveDataHome(dataDir !== undefined ? { dataDir } : {})),
    workspace: () => (ws ??= resolveWorkspace(cwd, { cwd: process.cwd(), dataHome: ctx.dataHome() })),
    engine: () =>
      (engine ??= (async () => {
        const { WorkspaceEngine } = await import('../engine/workspaceEngine');
        await useDetachedMaintenance();
        // RETRACE_LOCK_WAIT_MS: how long to wait for another writer (default 10 s).
        const wait = Number(process.env.RETRACE_LOCK_WAIT_MS);
        return new WorkspaceEngine(await ctx.workspace(), {
          actor: `retrace ${name}`,
          ...(Number.isFinite(wait) && wait >= 0 ? { lockWaitMs: wait } : {}),
        });
      })()),
  };
  return ctx;
}

/**
 * This process exits as soon as its command is done (bin/retrace.js), so maintenance a checkpoint schedules
 * runs in a detached `retrace maintenance` of its own, never inside the hook call (engine/maintenance.ts).
 */
async function useDetachedMaintenance(): Promise<void> {
  const bin = process.argv[1];
  if (!bin || !/retrace(\.c?js)?$/.test(bin)) return; // not the CLI (a test host): in-process stays
  const { setMaintenanceScheduler } = await import('../engine/maintenance');
  const { spawn } = await import('node:child_process');
  setMaintenanceScheduler((ws) => {
    const args = [bin, 'maintenance', '--cwd', ws.root, ...(ws.dataHome ? ['--data-dir', ws.dataHome] : [])];
    spawn(process.execPath, args, { detached: true, stdio: 'ignore', windowsHide: true }).unref();
  });
}

async function readStdin(): Promise<string> {
  // Run by hand in a terminal there is no input: do not wait for any.
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Index of the command name in argv: the first argument that is neither a flag nor a flag's value. */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (VALUE_FLAGS.has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return i;
  }
  return -1;
}

function helpText(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS)
    .filter(([, c]) => !c.hidden)
    .map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return [
    'usage: retrace <command> [flags]',
    '',
    'commands:',
    ...lines,
    '',
    'common flags: --json (one JSON document on stdout), --cwd DIR (the workspace), --data-dir DIR (or RETRACE_HOME)',
    "retrace <command> --help shows a command's flags; retrace --version, which build this is.",
    '',
  ].join('\n');
}
