/**
 * The I10 trial (issue 10 item 2): an agent's hooks checkpoint one tool call after another while the app reads
 * as it does when someone watches — `status` (window focus) and diffs to the files now (the "Since then"
 * compare, prefetched while scrubbing) — in a loop, in the app's way: one engine in this process. Hooks run as
 * Claude Code runs them: `retrace hook claude-code` processes fed a payload (through the resident hook server).
 *
 * Afterwards every call must be accounted for: recorded as a checkpoint message, or listed as missed with a
 * reason (I10; 0 missed is the target). Latencies are returned for docs/reliability.md.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import { resolveWorkspace } from '../../src/main/engine/workspace';
import { spawnCli } from '../helpers/cli';

export interface TrialOptions {
  root: string;
  home: string;
  /** Files the hooks' "edits" append to (workspace-relative). */
  editable: string[];
  calls: number;
  /** Every n-th call is a Bash tool call (no file hint: a full scan), as agents mix them. */
  bashEvery?: number;
  session: string;
  log?: (line: string) => void;
}

export interface Latency {
  n: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

export interface TrialResult {
  calls: number;
  recorded: number;
  missed: { reason: string; tool?: string }[];
  /** Calls neither recorded nor marked missed: must be 0 (I10). */
  unaccounted: number;
  hookExitNonZero: number;
  hook: Latency;
  status: Latency;
  diff: Latency;
  readerErrors: string[];
  wallMs: number;
}

export function latency(xs: number[]): Latency {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => (s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!);
  return { n: s.length, medianMs: Math.round(at(0.5)), p95Ms: Math.round(at(0.95)), maxMs: Math.round(at(1)) };
}

export async function runHookReaderTrial(o: TrialOptions): Promise<TrialResult> {
  const log = o.log ?? (() => {});
  const ws = await resolveWorkspace(o.root, { dataHome: o.home });
  const reader = new WorkspaceEngine(ws, { actor: 'Retrace app' });
  const env = { RETRACE_HOOK_TRACE: undefined, CLAUDE_PROJECT_DIR: undefined };
  const hook = (payload: object) =>
    spawnCli(['hook', 'claude-code'], {
      home: o.home,
      cwd: o.root,
      env,
      input: JSON.stringify(payload),
      timeoutMs: 120_000,
    }).done;

  // The session's first checkpoint: what the "Since then" diffs compare with.
  const first = await hook({ hook_event_name: 'UserPromptSubmit', session_id: o.session, cwd: o.root, prompt: 'go' });
  if (first.code !== 0) throw new Error(`first hook failed: ${first.stderr}`);
  const base = (await reader.session(o.session)).messages.find((m) => m.hash)?.hash ?? null;
  if (!base) throw new Error('the first hook recorded no checkpoint');

  const started = Date.now();
  let done = false;
  const statusMs: number[] = [];
  const diffMs: number[] = [];
  const readerErrors: string[] = [];
  const readers = (async () => {
    while (!done) {
      for (const [kind, read] of [
        ['status', () => reader.status()],
        ['diff', () => reader.diff(base, 'working')],
      ] as const) {
        const t0 = performance.now();
        try {
          await read();
          (kind === 'status' ? statusMs : diffMs).push(performance.now() - t0);
        } catch (e) {
          readerErrors.push(`${kind}: ${(e as Error).message}`);
        }
      }
    }
  })();

  const hookMs: number[] = [];
  let nonZero = 0;
  const bashEvery = o.bashEvery ?? 10;
  for (let i = 0; i < o.calls; i++) {
    const rel = o.editable[i % o.editable.length]!;
    appendFileSync(join(o.root, rel), `// hook call ${i}\n`);
    const bash = i % bashEvery === bashEvery - 1;
    const payload = bash
      ? { tool_name: 'Bash', tool_input: { command: `echo ${i} >> ${rel}` } }
      : { tool_name: 'Edit', tool_input: { file_path: join(o.root, rel), old_string: 'x', new_string: 'y' } };
    const r = await hook({
      hook_event_name: 'PostToolUse',
      session_id: o.session,
      cwd: o.root,
      tool_use_id: `toolu_${i}`,
      ...payload,
    });
    hookMs.push(r.ms);
    if (r.code !== 0) nonZero++;
    if ((i + 1) % 100 === 0) log(`${i + 1}/${o.calls} hook calls, ${statusMs.length + diffMs.length} reads`);
  }
  done = true;
  await readers;
  const wallMs = Date.now() - started;

  const messages = (await reader.session(o.session)).messages;
  const ids = new Set(messages.filter((m) => m.hash && m.meta?.sourceId).map((m) => m.meta!.sourceId!));
  let recorded = 0;
  for (let i = 0; i < o.calls; i++) if (ids.has(`toolu_${i}`)) recorded++;
  const missed = (await reader.missed.recent({ session: o.session, limit: 100_000 })).map((m) => ({
    reason: m.reason,
    ...(m.tool ? { tool: m.tool } : {}),
  }));
  return {
    calls: o.calls,
    recorded,
    missed,
    unaccounted: o.calls - recorded - missed.length,
    hookExitNonZero: nonZero,
    hook: latency(hookMs),
    status: latency(statusMs),
    diff: latency(diffMs),
    readerErrors,
    wallMs,
  };
}
