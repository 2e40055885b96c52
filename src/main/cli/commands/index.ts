/**
 * The command registry: name → summary + lazy loader, so start-up only loads the command that runs
 * (the Claude Code hook runs this CLI on every tool call).
 *
 * To add a command: create `commands/<name>.ts` that exports `command: Command` (see ../command.ts), then add
 * ONE line here:   name: { summary: 'what it does', load: () => import('./name') },
 * Names with a dash need quotes ('my-cmd': …). The common flags --json, --cwd, --data-dir and --help are
 * added to every command's options by the dispatcher.
 *
 * `DEFAULT_COMMAND` runs for `retrace` with no arguments and for `retrace DIR` (a first argument that is no
 * command name but an existing path): engineer C points it at the app-launch command when it exists.
 */
import type { Command } from '../command';

export interface CommandEntry {
  summary: string;
  load: () => Promise<{ command: Command }>;
  /** Internal: left out of `retrace --help`. */
  hidden?: boolean;
}

export const COMMANDS: Record<string, CommandEntry> = {
  message: { summary: 'append a message (optionally with a checkpoint)', load: () => import('./message') },
  checkpoint: { summary: 'snapshot the workspace as a checkpoint message', load: () => import('./checkpoint') },
  sessions: { summary: 'list the sessions of the workspace', load: () => import('./sessions') },
  log: { summary: "show a session's messages", load: () => import('./log') },
  diff: { summary: 'what changed between two checkpoints, or since one', load: () => import('./diff') },
  status: { summary: 'workspace summary, last restore, what recovery repaired', load: () => import('./status') },
  restore: { summary: 'restore code, conversation or both to a checkpoint', load: () => import('./restore') },
  undo: { summary: 'undo a restore by id (default: the most recent restore or undo)', load: () => import('./undo') },
  restores: { summary: 'list restores, reverts and undos, newest first', load: () => import('./restores') },
  revert: { summary: "take back one step's changes, keeping every later change", load: () => import('./revert') },
  hook: {
    summary: 'record one Claude Code, Codex or Gemini CLI hook call (payload on stdin); never fails the agent',
    load: () => import('./hook'),
  },
  'hook-server': {
    summary: 'internal: answers `retrace hook` calls of one data home; started by them, exits when idle',
    load: () => import('./hookServer'),
    hidden: true,
  },
  maintenance: {
    summary: 'internal: background pack/gc and repairs on a try-lock; started detached after checkpoints',
    load: () => import('./maintenance'),
    hidden: true,
  },
  install: {
    summary: "add Retrace's hooks to Claude Code's, Codex's or Gemini CLI's settings",
    load: () => import('./install'),
  },
  uninstall: {
    summary: "take Retrace's hooks out of an agent's settings again (sessions stay)",
    load: () => import('./uninstall'),
  },
  import: {
    summary: "import an agent's session: a Claude Code transcript, a Codex rollout, a Gemini CLI chat or a Cline task",
    load: () => import('./import'),
  },
  demo: { summary: 'create a small project with a recorded multi-turn session', load: () => import('./demo') },
  serve: { summary: 'the desktop UI in a browser, on 127.0.0.1 behind a token', load: () => import('./serve') },
  discover: {
    summary: "find this folder's Claude Code, Codex, Gemini and Cline sessions (--import brings them in)",
    load: () => import('./discover'),
  },
  watch: {
    summary: 'checkpoint whenever file activity in DIR settles (for agents without hooks)',
    load: () => import('./watch'),
  },
  blame: {
    summary: 'who last changed each line of a file: which step, prompt and agent',
    load: () => import('./blame'),
  },
  push: {
    summary: 'send sessions to a git remote under refs/retrace/ (never your branches)',
    load: () => import('./push'),
  },
  pull: { summary: "bring a git remote's sessions in, read-only", load: () => import('./pull') },
  export: { summary: 'line attribution as an Agent Trace record (--agent-trace)', load: () => import('./export') },
  search: { summary: 'find messages by text, changed file path or label', load: () => import('./search') },
  label: {
    summary: 'label a checkpoint (or --remove its label); labelled ones are kept',
    load: () => import('./label'),
  },
  gc: {
    summary: 'let old sessions age out within the storage budget (labelled ones stay)',
    load: () => import('./gc'),
  },
  forget: { summary: 'remove one session and the storage only it uses', load: () => import('./forget') },
  move: {
    summary: 'give the history of a folder that was moved or renamed to the folder it is now',
    load: () => import('./move'),
  },
  app: { summary: 'open the desktop app (also `retrace` or `retrace DIR`)', load: () => import('./app') },
};

/** Command for no arguments / `retrace DIR`; null until the app launcher is registered. */
export const DEFAULT_COMMAND: string | null = 'app';
