/** What a CLI command module exports, and what it is given when it runs. */
import type { ParseArgsConfig } from 'node:util';
import type { WorkspaceEngine } from '../engine/workspaceEngine';
import type { WorkspaceRef } from '../engine/workspace';
import type { Output } from './output';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** Parsed values: strings, booleans, or arrays of them for `multiple` options. */
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface CommandContext {
  /** Flags shared by every command. */
  json: boolean;
  cwd: string;
  dataDir: string | undefined;
  out: Output;
  values: Values;
  positionals: string[];
  /** The whole of stdin (given by the hook client/server, else read from this process; '' at a terminal). */
  stdin(): Promise<string>;
  /** Set when another process runs the command for its caller ("server": the hook server). */
  via?: string;
  /** The data directory (RETRACE_HOME / --data-dir / the app's). */
  dataHome(): string;
  /** The workspace named by --cwd (default: the current directory), validated. */
  workspace(): Promise<WorkspaceRef>;
  /** Its coordinator. */
  engine(): Promise<WorkspaceEngine>;
}

export interface Command {
  /** e.g. 'restore TARGET (--code | --conversation | --both) [--file PATH]... [--dry-run]' */
  usage: string;
  /** The command's own flags (the common ones — --json, --cwd, --data-dir, --help — are added). */
  options: OptionSpec;
  /** How many positional arguments it takes. */
  positionals: { min: number; max: number };
  /** Returns the exit code (0 unless said otherwise). Throw RetraceError to fail. */
  run(ctx: CommandContext): Promise<number | void>;
}
