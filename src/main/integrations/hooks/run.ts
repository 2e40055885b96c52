/**
 * `retrace hook codex|gemini` after the payload is read: plan (the agent's module) and record (./record.ts).
 * Every agent here expects a JSON object on stdout, whatever happened (see codex/hook.ts, gemini/hook.ts).
 */
import { planCodexHook } from '../codex/hook';
import { planGeminiHook } from '../gemini/hook';
import type { Payload } from './payload';
import { recordHookCall, type HookAgent, type HookOutcome } from './record';

export const HOOK_AGENTS: readonly HookAgent[] = ['codex', 'gemini'];

/** Printed on stdout after every call: "go on", in every event's output schema. */
export const CONTINUE_OUTPUT = '{}\n';

export function isHookAgent(name: string | undefined): name is HookAgent {
  return (HOOK_AGENTS as readonly string[]).includes(name ?? '');
}

export async function runAgentHook(
  agent: HookAgent,
  payload: Payload,
  opts: { dataHome: string; env?: NodeJS.ProcessEnv },
): Promise<HookOutcome> {
  const env = opts.env ?? process.env;
  const plan = agent === 'codex' ? planCodexHook(payload) : planGeminiHook(payload, env);
  const event = typeof payload.hook_event_name === 'string' ? payload.hook_event_name : '';
  if (!plan) return { event, recorded: false };
  return recordHookCall(plan, { dataHome: opts.dataHome, env });
}
