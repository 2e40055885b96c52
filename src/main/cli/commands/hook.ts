/**
 * `retrace hook claude-code` — run by Claude Code on UserPromptSubmit, PostToolUse and Stop with a JSON payload
 * on stdin; `retrace hook codex` and `retrace hook gemini` the same for Codex CLI and Gemini CLI, which read
 * `{}` on stdout as "go on" (integrations/hooks/run.ts). It never blocks or fails the agent: whatever goes wrong (bad JSON, a locked or protected folder,
 * git missing) is appended to <data dir>/logs/hook.log and the exit code is 0. It prints nothing on stdout.
 */
import { join } from 'node:path';
import { toErrorInfo } from '../../../shared/errors';
import { appendFilePrivateSync, mkdirPrivateSync, openPrivateHome } from '../../engine/privateFs';
import type { Command } from '../command';

export const command: Command = {
  usage: 'hook (claude-code | codex | gemini)   (reads one hook payload of that agent on stdin)',
  options: {},
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const started = performance.now();
    let event = '?';
    let session = '?';
    let answer = '';
    let steps = '';
    try {
      const source = ctx.positionals[0];
      if (source === 'codex' || source === 'gemini') {
        // The agent reads our stdout as JSON: `{}` (go on), however the call ends.
        answer = (await import('../../integrations/hooks/run')).CONTINUE_OUTPUT;
      } else if (source !== 'claude-code') throw new Error(`unknown hook source ${JSON.stringify(source)}`);
      const input = await ctx.stdin();
      let res: { recorded: boolean; message?: string; hash?: string | null };
      if (source === 'codex' || source === 'gemini') {
        const { parseHookPayload } = await import('../../integrations/hooks/payload');
        const { runAgentHook } = await import('../../integrations/hooks/run');
        const payload = parseHookPayload(input);
        event = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '?';
        session = typeof payload.session_id === 'string' ? payload.session_id : '?';
        res = await runAgentHook(source, payload, { dataHome: ctx.dataHome() });
      } else {
        const { handleHook, parsePayload } = await import('../../integrations/claude-code/hook');
        const payload = parsePayload(input);
        event = payload.hook_event_name ?? '?';
        session = payload.session_id ?? '?';
        if (process.env.RETRACE_HOOK_TRACE) {
          const { traceSteps } = await import('../../engine/stepTrace');
          const traced = await traceSteps(() => handleHook(payload, { dataHome: ctx.dataHome() }));
          res = traced.value;
          steps = traced.steps;
        } else res = await handleHook(payload, { dataHome: ctx.dataHome() });
      }
      if (process.env.RETRACE_HOOK_TRACE)
        log(
          ctx,
          `ok ${event} ${session}${res.recorded ? ` ${res.message} ${res.hash ?? ''}` : ' (not recorded)'} ${ms(started)}ms${steps ? ` [${steps}]` : ''}${via(ctx)}`,
        );
    } catch (e) {
      log(
        ctx,
        `error ${event} ${session}: ${toErrorInfo(e).code} ${toErrorInfo(e).message} (${ms(started)}ms)${via(ctx)}`,
      );
    }
    if (answer) process.stdout.write(answer);
    return 0;
  },
};

/** " via server" when the hook server ran this call for its caller. */
function via(ctx: { via?: string }): string {
  return ctx.via ? ` via ${ctx.via}` : '';
}

function ms(started: number): string {
  return (performance.now() - started).toFixed(0);
}

function log(ctx: { dataHome(): string }, line: string): void {
  try {
    appendHookLog(ctx.dataHome(), line);
  } catch {
    // No data home: still never fail the agent.
  }
}

/** Log folders this process made sure of: the hook server appends a line per call (with RETRACE_HOOK_TRACE). */
const logDirsReady = new Set<string>();

/** Append one line to <data dir>/logs/hook.log (the hook server logs there too). Never throws. */
export function appendHookLog(dataHome: string, line: string): void {
  try {
    const dir = join(dataHome, 'logs');
    const text = `${new Date().toISOString()} ${line}\n`;
    if (logDirsReady.has(dir)) {
      try {
        return appendFilePrivateSync(join(dir, 'hook.log'), text);
      } catch {
        logDirsReady.delete(dir); // removed meanwhile: made again below
      }
    }
    openPrivateHome(dataHome); // also when no workspace was resolved (a refused folder, bad JSON)
    mkdirPrivateSync(dir);
    appendFilePrivateSync(join(dir, 'hook.log'), text);
    logDirsReady.add(dir);
  } catch {
    // Nowhere to log: still never fail the agent.
  }
}
