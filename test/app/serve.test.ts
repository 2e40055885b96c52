/** The serve host refuses what it must, over real HTTP and WebSocket connections to a started server. */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { persistentToken } from '../../src/main/serve/access';
import { eventually } from '../helpers/eventually';
import { startServeHost, type ServeHost } from '../../src/main/serve/server';
import { createService, type RetraceService } from '../../src/main/service';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp';

let tmp: string;
let host: ServeHost;
let service: RetraceService;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'retrace-serve-test-'));
  const renderer = join(tmp, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Retrace</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(tmp, 'secret.txt'), 'outside the renderer');
  const workspace = join(tmp, 'project');
  mkdirSync(workspace);
  service = createService({ host: 'serve', dataHome: join(tmp, 'home'), initialWorkspace: workspace, watch: false });
  host = await startServeHost({
    dispatch: (m, a) => service.dispatch(m, a),
    subscribe: (l) => service.subscribe(l),
    rendererDir: renderer,
  });
});

afterAll(async () => {
  await host?.close();
  await service?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(path: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}${path}`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function rpc(
  ws: WebSocket,
  frame: unknown,
): Promise<{ id: unknown; result: { ok: boolean; value?: unknown; error?: { code: string } } }> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString())));
    ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  });
}

describe('retrace serve host', () => {
  it('listens on 127.0.0.1 and prints a URL with the token in its path', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/${host.token}/`);
    expect(host.token.length).toBeGreaterThanOrEqual(32);
  });

  it('serves the page with the token, with the CSP and no referrer', async () => {
    const r = await get(`/${host.token}/`);
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>Retrace</title>');
    expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(r.headers['referrer-policy']).toBe('no-referrer');
    expect((await get(`/${host.token}/assets/app.js`)).status).toBe(200);
    const viaQuery = await get(`/?token=${host.token}`);
    expect(viaQuery.status).toBe(302);
    expect(viaQuery.headers.location).toBe(`/${host.token}/`);
  });

  it("says once when the page's first script has been sent (retrace serve reads the folder ahead then)", async () => {
    let calls = 0;
    const own = await startServeHost({
      dispatch: (m, a) => service.dispatch(m, a),
      rendererDir: join(tmp, 'renderer'),
      onScriptSent: () => calls++,
    });
    const fetch = (path: string) =>
      new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: own.port, path }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
          .on('error', reject)
          .end();
      });
    try {
      expect(await fetch(`/${own.token}/`)).toBe(200);
      expect(await fetch(`/wrong-token/assets/app.js`)).toBe(403);
      expect(calls).toBe(0);
      expect(await fetch(`/${own.token}/assets/app.js`)).toBe(200);
      await eventually('the first script sent', () => calls === 1);
      expect(await fetch(`/${own.token}/assets/app.js`)).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
      expect(calls).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('refuses a missing or wrong token', async () => {
    // The token with its last character changed (to one it is not: a token ending in x made this the token itself).
    const lastChanged = host.token.slice(0, -1) + (host.token.endsWith('x') ? 'y' : 'x');
    for (const path of [
      '/',
      '/index.html',
      '/assets/app.js',
      `/${lastChanged}/`,
      `/${host.token}x/`,
      '/?token=nope',
      `/?token=`,
    ]) {
      expect((await get(path)).status, path).toBe(403);
    }
  });

  it("answers the browser's own /favicon.ico with an empty 204, not a 403 on every load", async () => {
    const r = await get('/favicon.ico');
    expect(r.status).toBe(204);
    expect(r.body).toBe('');
    // Still only for our own origin.
    expect((await get('/favicon.ico', { Host: `evil.example:${host.port}` })).status).toBe(403);
  });

  it('keeps the token in the data home across restarts, readable by its owner only', () => {
    const file = join(tmp, 'home', 'serve-token');
    const first = persistentToken(file);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(persistentToken(file)).toBe(first);
    expect(statSync(file).mode & 0o077).toBe(0);
    writeFileSync(file, 'short\n');
    const replaced = persistentToken(file);
    expect(replaced).not.toBe('short');
    expect(replaced.length).toBeGreaterThanOrEqual(32);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin', async () => {
    const page = `/${host.token}/`;
    expect((await get(page, { Host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await get(page, { Host: `127.0.0.1:${host.port + 1}` })).status).toBe(403);
    expect((await get(page, { Host: `localhost:${host.port}` })).status).toBe(200);
    expect((await get(page, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(page, { Origin: `http://localhost:${host.port + 1}` })).status).toBe(403);
    expect((await get(page, { Origin: `http://127.0.0.1:${host.port}` })).status).toBe(200);
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const p of [
      '%2e%2e/secret.txt',
      '..%2fsecret.txt',
      '%2e%2e%2f%2e%2e%2fsecret.txt',
      '.hidden',
      'assets/..%5c..%5csecret.txt',
    ]) {
      const r = await get(`/${host.token}/${p}`);
      expect([403, 404], p).toContain(r.status);
      expect(r.body).not.toContain('outside the renderer');
    }
  });

  it('refuses the WebSocket without the token, from a foreign Origin or Host', async () => {
    await expect(connect('/ws')).rejects.toThrow(/403/);
    await expect(connect(`/${host.token}x/ws`)).rejects.toThrow(/403/);
    await expect(connect(`/${host.token}/ws`, { Origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(connect(`/${host.token}/ws`, { Host: `evil.example:${host.port}` })).rejects.toThrow(/403/);
  });

  it('answers the contract over the WebSocket, validating every request', async () => {
    const ws = await connect(`/${host.token}/ws`, { Origin: `http://127.0.0.1:${host.port}` });
    try {
      const init = await rpc(ws, { id: 1, method: 'init', args: {} });
      expect(init.id).toBe(1);
      expect(init.result.ok).toBe(true);
      expect(init.result.value).toMatchObject({ host: 'serve', workspace: { name: 'project' } });
      const unknown = await rpc(ws, { id: 2, method: 'runShell', args: {} });
      expect(unknown.result.error?.code).toBe('E_USAGE');
      const bad = await rpc(ws, { id: 3, method: 'status', args: { workspace: '../../etc' } });
      expect(bad.result.error?.code).toBe('E_INVALID_INPUT');
      const garbage = await rpc(ws, 'not json');
      expect(garbage).toMatchObject({ id: null, result: { ok: false, error: { code: 'E_USAGE' } } });
      const picked = await rpc(ws, { id: 4, method: 'pickFolder', args: {} });
      expect(picked.result.error?.code).toBe('E_UNSUPPORTED');
    } finally {
      ws.close();
    }
  });
});
