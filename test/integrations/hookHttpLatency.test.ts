/**
 * What one PostToolUse hook call costs at a 1,000-file tree: 50 HTTP hook calls (a POST, as Claude Code makes
 * it) against 50 command hook calls (`node bin/retrace.js hook claude-code`, answered by the warm hook
 * server), each after a one-file edit. A measurement for the README, not a check: it runs only with
 * RETRACE_HTTP_HOOK_BENCH=1 and prints the medians.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readHttpConfig, SECRET_HEADER } from '../../src/main/cli/hookServer/httpConfig';
import { hookServerPaths } from '../../src/main/cli/hookServer/paths';
import { pidAlive } from '../../src/main/engine/pidAlive';
import { cleanupTempDirs, makeWorkspace, runCli, tempHome } from '../helpers';

const ON = { RETRACE_HOOK_SERVER: undefined, RETRACE_HOOK_TRACE: '1', CLAUDE_PROJECT_DIR: undefined };
const CALLS = 50;
const SESSION = '8e55a7e0-1b2c-4d3e-8f4a-5b6c7d8e9f02';
const bench = process.env.RETRACE_HTTP_HOOK_BENCH === '1';

afterAll(cleanupTempDirs);

function median(ms: number[]): number {
  const s = [...ms].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

describe.skipIf(!bench)(
  'HTTP vs command hook latency (skipped unless RETRACE_HTTP_HOOK_BENCH=1: a measurement)',
  () => {
    it(`median of ${CALLS} calls each at a 1,000-file tree`, async () => {
      const tree: Record<string, string> = {};
      for (let i = 0; i < 1000; i++) tree[`src/d${i % 20}/f${i}.ts`] = `export const v${i} = ${i};\n`;
      const home = tempHome();
      const ws = makeWorkspace(tree);
      const payload = (p: Record<string, unknown>): string => JSON.stringify({ session_id: SESSION, cwd: ws, ...p });
      const edit = (i: number): Record<string, unknown> => {
        const file = join(ws, `src/d${i % 20}/f${i}.ts`);
        writeFileSync(file, `export const v${i} = ${i + 1};\n`);
        return {
          hook_event_name: 'PostToolUse',
          tool_name: 'Edit',
          tool_use_id: `t${i}`,
          tool_input: { file_path: file },
        };
      };
      const warm = await runCli(['hook', 'claude-code'], {
        home,
        cwd: ws,
        env: ON,
        input: payload({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }),
      });
      expect(warm.code).toBe(0);
      let pid = 0;
      for (let tries = 0; ; tries++) {
        pid = Number(readFileSync(hookServerPaths(home).pidFile, 'utf8') || 0);
        const c = readHttpConfig(home);
        if (pid && pidAlive(pid) && c && (await accepts(c.port))) break;
        if (tries > 400) throw new Error('no hook server');
        await new Promise((r) => setTimeout(r, 50));
      }
      const config = readHttpConfig(home)!;
      try {
        const command: number[] = [];
        for (let i = 0; i < CALLS; i++) {
          const r = await runCli(['hook', 'claude-code'], { home, cwd: ws, env: ON, input: payload(edit(i)) });
          expect(r.code).toBe(0);
          command.push(r.ms);
        }
        const http: number[] = [];
        for (let i = CALLS; i < 2 * CALLS; i++) {
          const body = payload(edit(i));
          const t0 = performance.now();
          const r = await fetch(`http://127.0.0.1:${config.port}/hook/claude-code`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', [SECRET_HEADER]: config.secret },
            body,
          });
          await r.text();
          http.push(performance.now() - t0);
          expect(r.status).toBe(200);
        }
        const log = readFileSync(join(home, 'logs', 'hook.log'), 'utf8');
        expect(log).not.toMatch(/ error /);
        // Every measured call, command or HTTP, was answered by the warm server.
        expect(log.split('\n').filter((l) => / ok PostToolUse .* via server$/.test(l))).toHaveLength(2 * CALLS);
        console.log(
          `hook latency at 1,000 files, median of ${CALLS}: HTTP ${median(http).toFixed(1)} ms, command ${median(command).toFixed(1)} ms`,
        );
      } finally {
        process.kill(pid, 'SIGKILL');
      }
    }, 300_000);
  },
);
