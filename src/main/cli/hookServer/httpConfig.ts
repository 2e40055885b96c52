/**
 * Where Claude Code's HTTP hooks reach the hook server of a data home: a loopback port chosen once and a
 * random per-install secret, kept in <data home>/hook-server/http.json (0600, through privateFs). The port
 * stays the same across server restarts because the URL is written into Claude Code's settings by
 * `retrace install claude-code`; the secret keeps other local users and programs (or a web page posting to
 * 127.0.0.1) from recording into our sessions.
 *
 * Claude Code's HTTP hooks, as confirmed with the search tool (hooks reference fields as reported in
 * anthropics/claude-code#35653 and #31723, mcs-cli/mcs#227; version from yonatangross/orchestkit#856):
 * `{"type": "http", "url", "headers"?, "allowedEnvVars"?, "timeout"?}`; Claude Code POSTs the same JSON a
 * command hook reads on stdin; a failed connection, a timeout or a non-2xx status is a non-blocking error.
 * Added in Claude Code 2.1.63.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { mkdirPrivateSync, writeFilePrivateSync } from '../../engine/privateFs';

/** The request header that carries the secret. */
export const SECRET_HEADER = 'X-Retrace-Secret';
/** The route of a Claude Code hook call. */
export const CLAUDE_HOOK_ROUTE = '/hook/claude-code';
/** The first Claude Code version with `"type": "http"` hooks. */
export const FIRST_HTTP_HOOK_VERSION = '2.1.63';

export interface HttpHookConfig {
  port: number;
  secret: string;
  /** Set by `retrace install claude-code` when it wrote HTTP hooks: calls can then be lost while no server runs. */
  httpHooks?: boolean;
}

export function httpConfigPath(dataHome: string): string {
  return path.join(dataHome, 'hook-server', 'http.json');
}

export function hookUrl(config: HttpHookConfig): string {
  return `http://127.0.0.1:${config.port}${CLAUDE_HOOK_ROUTE}`;
}

/** The saved config, or null when there is none (or it is not ours to trust: malformed). */
export function readHttpConfig(dataHome: string): HttpHookConfig | null {
  try {
    const c = JSON.parse(readFileSync(httpConfigPath(dataHome), 'utf8')) as Partial<HttpHookConfig>;
    if (!Number.isInteger(c.port) || c.port! <= 0 || c.port! > 65535) return null;
    if (typeof c.secret !== 'string' || c.secret.length < 32) return null;
    return { port: c.port!, secret: c.secret, ...(c.httpHooks === true ? { httpHooks: true } : {}) };
  } catch {
    return null;
  }
}

/** The saved config, created on first use: a port free right now on 127.0.0.1 and a fresh secret. */
export async function ensureHttpConfig(dataHome: string): Promise<HttpHookConfig> {
  const saved = readHttpConfig(dataHome);
  if (saved) return saved;
  const config: HttpHookConfig = { port: await freeLoopbackPort(), secret: randomBytes(32).toString('hex') };
  mkdirPrivateSync(path.dirname(httpConfigPath(dataHome)));
  try {
    writeFilePrivateSync(httpConfigPath(dataHome), JSON.stringify(config) + '\n', { flag: 'wx' });
  } catch (e) {
    // Another process created it first: theirs is the one every later call reads.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const theirs = readHttpConfig(dataHome);
    if (theirs) return theirs;
    writeFilePrivateSync(httpConfigPath(dataHome), JSON.stringify(config) + '\n');
  }
  return config;
}

/** Remember whether Claude Code was given HTTP hooks (see ./gap.ts: only then can a call be lost). */
export function setHttpHooksInstalled(dataHome: string, config: HttpHookConfig, installed: boolean): void {
  const next: HttpHookConfig = { port: config.port, secret: config.secret, ...(installed ? { httpHooks: true } : {}) };
  writeFilePrivateSync(httpConfigPath(dataHome), JSON.stringify(next) + '\n');
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
