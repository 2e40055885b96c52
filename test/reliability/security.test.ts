/**
 * Issue 6 part 5: the renderer reaches nothing outside the contract, and neither IPC nor `retrace serve` lets a
 * request out of the workspace. Extends test/app/{preload,window,serve}.test.ts (C's) with the edge cases:
 * the preload source exposes one frozen bridge only; every webPreference that matters; navigation/window/
 * webview guards on a real event emitter; IPC from foreign frames; `..`, absolute, backslash, NUL, encoded
 * and symlinked paths through the real service, over IPC and over serve's HTTP and WebSocket; token and
 * Host/Origin look-alikes. Ends with the electronegativity audit (no unexplained finding).
 */
import { EventEmitter } from 'node:events';
import { readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildRetraceApi, type IpcRendererLike } from '../../src/preload/api';
import { registerIpc } from '../../src/main/electron/ipc';
import {
  hardenWebContents,
  isAppUrl,
  SECURE_WEB_PREFERENCES,
  windowOptions,
  APP_ORIGIN,
} from '../../src/main/electron/window';
import { startServeHost, type ServeHost } from '../../src/main/serve/server';
import { createService, type RetraceService } from '../../src/main/service';
import { API_METHODS, ipcChannel } from '../../src/shared/contract';
import { cleanupTempDirs, makeWorkspace, REPO_ROOT, runCli, tempDir, tempHome } from '../helpers/index';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

let ws: string;
let home: string;
let outside: string;
let service: RetraceService;
let workspaceId: string;
let firstHash: string;
let host: ServeHost;

beforeAll(async () => {
  ws = makeWorkspace();
  home = tempHome();
  outside = tempDir('retrace-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET outside the workspace\n');
  symlinkSync(outside, join(ws, 'escape'));
  const cp = await runCli(['checkpoint', '--json'], { home, cwd: ws });
  expect(cp.code, cp.stderr).toBe(0);
  firstHash = (cp.json as { hash: string }).hash;
  service = createService({ host: 'serve', dataHome: home, watch: false });
  const opened = await service.dispatch('openWorkspace', { path: ws });
  expect(opened.ok).toBe(true);
  workspaceId = (opened as { value: { id: string } }).value.id;
  const renderer = tempDir('retrace-renderer-');
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Retrace</title>');
  host = await startServeHost({ dispatch: (m, a) => service.dispatch(m, a), rendererDir: renderer });
}, 60_000);

afterAll(async () => {
  await host?.close();
  await service?.close();
  cleanupTempDirs();
});

/** Path requests that must never leave the workspace, and how each may legitimately be answered. */
const BAD_PATHS = [
  '../secret.txt',
  '../../../../etc/passwd',
  'src/../../secret.txt',
  '/etc/passwd',
  '\\etc\\passwd',
  '..\\..\\etc\\passwd',
  'C:\\Windows\\win.ini',
  'escape/secret.txt', // through a symlink that points out of the workspace
  'src/\0/x',
];

const refused = (r: Any): boolean =>
  r && r.ok === false && ['E_PATH_OUTSIDE_WORKSPACE', 'E_INVALID_INPUT'].includes(r.error?.code);

describe('renderer surface (preload + window)', () => {
  it('the preload exposes exactly one bridge, built from the contract, never ipcRenderer itself', () => {
    const src = readFileSync(join(REPO_ROOT, 'src/preload/index.ts'), 'utf8');
    const exposes = [...src.matchAll(/exposeInMainWorld\(\s*'([^']+)'\s*,\s*([^)]+\))/g)];
    expect(exposes.map((m) => m[1])).toEqual(['retrace']);
    expect(src).not.toMatch(/exposeInMainWorld\(\s*'[^']+'\s*,\s*(ipcRenderer|contextBridge|require)\b/);
    expect(exposes[0]?.[2]).toMatch(/^buildRetraceApi\(/);
    for (const file of readdirSync(join(REPO_ROOT, 'src/preload'))) {
      const text = readFileSync(join(REPO_ROOT, 'src/preload', file), 'utf8');
      expect(text, file).not.toMatch(/require\(|process\.|child_process|node:fs|ipcRenderer\.send\(/);
    }
  });

  it('the bridge cannot be extended, re-pointed or used to reach another channel', async () => {
    const channels: string[] = [];
    const ipc: IpcRendererLike = {
      invoke: async (channel) => (channels.push(channel), { ok: true, value: null }),
      on: () => undefined,
      removeListener: () => undefined,
    };
    const api = buildRetraceApi(ipc, { getPathForFile: () => '' }) as Any;
    expect(() => {
      'use strict';
      api.invoke = () => 1;
    }).toThrow();
    expect(() => {
      'use strict';
      api.status = () => 1;
    }).toThrow();
    expect(Object.getPrototypeOf(api)).toBe(Object.prototype);
    // Whatever a page passes, each method goes to its own fixed channel.
    for (const m of API_METHODS) await api[m]({ channel: 'retrace:evil', method: 'evil', __proto__: { x: 1 } });
    expect(channels).toEqual(API_METHODS.map(ipcChannel));
  });

  // The required values themselves (contextIsolation, sandbox, …) are asserted in test/app/window.test.ts.
  it('no risky webPreference is switched on, and windows get nothing else but the preload and DevTools off', () => {
    const p = SECURE_WEB_PREFERENCES as Record<string, unknown>;
    for (const risky of ['enableRemoteModule', 'plugins', 'devTools', 'disableBlinkFeatures', 'additionalArguments'])
      expect(p[risky] === undefined || p[risky] === false, risky).toBe(true);
    const opts = windowOptions('/x/preload.cjs', 't');
    expect(Object.keys(opts.webPreferences!).sort()).toEqual(
      [...Object.keys(SECURE_WEB_PREFERENCES), 'preload', 'devTools'].sort(),
    );
    // DevTools only for an unpackaged run; a shipped window cannot open them.
    expect(opts.webPreferences!.devTools).toBe(false);
  });

  it('no BrowserWindow or webPreferences are made outside window.ts', () => {
    const dir = join(REPO_ROOT, 'src/main/electron');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'window.ts')) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/new BrowserWindow\(|webPreferences\s*:/);
    }
  });

  it('navigation away, redirects, new windows and webviews are all refused', () => {
    const contents = new EventEmitter() as Any;
    let openHandler: ((d: unknown) => { action: string }) | null = null;
    contents.setWindowOpenHandler = (h: typeof openHandler) => (openHandler = h);
    hardenWebContents(contents);
    const fire = (name: string, url: string): boolean => {
      let prevented = false;
      contents.emit(name, { preventDefault: () => (prevented = true) }, url);
      return prevented;
    };
    for (const url of [
      'https://evil.example/',
      `${APP_ORIGIN}/index.html`,
      'javascript:alert(1)',
      'file:///etc/passwd',
    ])
      expect(fire('will-navigate', url), url).toBe(true);
    expect(fire('will-redirect', 'https://evil.example/')).toBe(true);
    expect(fire('will-attach-webview', 'https://evil.example/')).toBe(true);
    expect(openHandler!({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
  });

  it('app-origin checks are not fooled by look-alike URLs', () => {
    const origins = [APP_ORIGIN];
    for (const url of [
      'retrace-app://app.evil/index.html',
      'retrace-app://evil/index.html',
      'https://app/index.html',
      'retrace-app://app@evil/index.html',
      '',
      undefined,
    ])
      expect(isAppUrl(url as string, origins), String(url)).toBe(false);
    expect(isAppUrl(`${APP_ORIGIN}/index.html#x`, origins)).toBe(true);
  });
});

describe('IPC: requests from foreign frames and paths out of the workspace', () => {
  function fakeIpcMain() {
    const handlers = new Map<string, (event: unknown, args: unknown) => Promise<unknown>>();
    return {
      handlers,
      ipcMain: { handle: (c: string, h: Any) => handlers.set(c, h), removeHandler: (c: string) => handlers.delete(c) },
    };
  }

  it('answers only frames of the app, for every method', async () => {
    const { handlers, ipcMain } = fakeIpcMain();
    let dispatched = 0;
    registerIpc(ipcMain as Any, {
      dispatch: async () => (dispatched++, { ok: true, value: null }),
      isTrustedUrl: (url) => isAppUrl(url, [APP_ORIGIN]),
    });
    expect([...handlers.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort());
    for (const url of ['https://evil.example/', 'file:///tmp/x.html', undefined]) {
      for (const h of handlers.values()) {
        const r = (await h({ senderFrame: url === undefined ? null : { url } }, {})) as Any;
        expect(r.ok).toBe(false);
      }
    }
    expect(dispatched).toBe(0);
  });

  it.each(BAD_PATHS)('fileContents / previewRestore / restore refuse %j (real service via IPC)', async (bad) => {
    const { handlers, ipcMain } = fakeIpcMain();
    registerIpc(ipcMain as Any, { dispatch: (m, a) => service.dispatch(m, a), isTrustedUrl: () => true });
    const call = (m: string, args: unknown) =>
      handlers.get(ipcChannel(m as Any))!({ senderFrame: { url: APP_ORIGIN } }, args);
    const before = readFileSync(join(outside, 'secret.txt'), 'utf8');
    const fc = (await call('fileContents', {
      workspace: workspaceId,
      from: firstHash,
      to: 'working',
      path: bad,
    })) as Any;
    expect(refused(fc), JSON.stringify(fc)).toBe(true);
    const pr = (await call('previewRestore', { workspace: workspaceId, target: firstHash, paths: [bad] })) as Any;
    expect(refused(pr), JSON.stringify(pr)).toBe(true);
    const rs = (await call('restore', {
      workspace: workspaceId,
      target: firstHash,
      mode: 'code',
      paths: [bad],
    })) as Any;
    expect(refused(rs), JSON.stringify(rs)).toBe(true);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(before);
  });

  it('an oldPath out of the workspace is refused too, and encoded dots are just a (missing) name', async () => {
    const r = (await service.dispatch('fileContents', {
      workspace: workspaceId,
      from: firstHash,
      to: 'working',
      path: 'README.md',
      oldPath: '../secret.txt',
    })) as Any;
    expect(refused(r), JSON.stringify(r)).toBe(true);
    const enc = (await service.dispatch('fileContents', {
      workspace: workspaceId,
      from: firstHash,
      to: 'working',
      path: '%2e%2e/secret.txt',
    })) as Any;
    expect(JSON.stringify(enc)).not.toContain('TOP SECRET');
  });

  it('a workspace id that is a path, or another workspace id, is refused', async () => {
    for (const id of ['../..', '/etc', 'x/../../y', workspaceId + '/..']) {
      const r = (await service.dispatch('listSessions', { workspace: id })) as Any;
      expect(r.ok, id).toBe(false);
    }
  });
});

describe('serve: look-alike tokens, hosts and origins; paths out of the workspace over the socket', () => {
  const get = (
    path: string,
    headers: Record<string, string> = {},
    method = 'GET',
  ): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: host.port, path, method, headers, setHost: !('host' in headers) },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('refuses near-miss tokens', async () => {
    const t = host.token;
    for (const path of [
      `/${t}x/`,
      `/${t.slice(0, -1)}/`,
      `/${t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase()}/`,
      `//${t}/`,
      `/x/${t}/`,
      `/?token=${t}x`,
      `/%2F${t}/`,
    ])
      expect((await get(path)).status, path).toBe(403);
  });

  it('refuses look-alike Host and Origin headers', async () => {
    const p = host.port;
    const ok = `/${host.token}/`;
    for (const h of [
      `127.0.0.1.evil.example:${p}`,
      `evil.example`,
      `127.0.0.1:${p + 1}`,
      `localhost.:${p}`,
      `[::1]:${p}`,
      `0.0.0.0:${p}`,
    ])
      expect((await get(ok, { host: h })).status, h).toBe(403);
    for (const o of [
      'null',
      `http://127.0.0.1:${p + 1}`,
      `https://127.0.0.1:${p}`,
      `http://127.0.0.1:${p}.evil.example`,
      'file://',
    ])
      expect((await get(ok, { origin: o })).status, o).toBe(403);
    expect((await get(ok, {}, 'POST')).status).toBe(405);
  });

  it('never serves a file outside the renderer, however the path is spelt', async () => {
    const t = host.token;
    for (const path of [
      `/${t}/..%2f..%2fetc%2fpasswd`,
      `/${t}/%2e%2e/%2e%2e/etc/passwd`,
      `/${t}/..%5c..%5cetc%5cpasswd`,
      `/${t}/%252e%252e/etc/passwd`,
      `/${t}/.git/config`,
      `/${t}/index.html%00.js`,
    ]) {
      const r = await get(path);
      expect(r.status, path).not.toBe(200);
      expect(r.body).not.toMatch(/root:|\[core\]/);
    }
  });

  it('over the WebSocket, paths out of the workspace are refused like over IPC', async () => {
    const sock = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(`ws://127.0.0.1:${host.port}/${host.token}/ws`);
      s.once('open', () => resolve(s));
      s.once('error', reject);
    });
    try {
      let id = 0;
      const rpc = (method: string, args: unknown): Promise<Any> =>
        new Promise((resolve) => {
          const my = ++id;
          const onMsg = (data: Buffer) => {
            const f = JSON.parse(data.toString());
            if (f.id === my) {
              sock.off('message', onMsg);
              resolve(f.result);
            }
          };
          sock.on('message', onMsg);
          sock.send(JSON.stringify({ id: my, method, args }));
        });
      for (const bad of BAD_PATHS) {
        const r = await rpc('fileContents', { workspace: workspaceId, from: firstHash, to: 'working', path: bad });
        expect(refused(r), `${bad}: ${JSON.stringify(r)}`).toBe(true);
      }
      // Methods outside the contract do not exist.
      for (const m of ['__proto__', 'constructor', 'dispatch', 'handlers', 'close']) {
        const r = await rpc(m, {});
        expect(r.ok, m).toBe(false);
      }
      // A protected folder cannot be opened from the page either.
      const prot = await rpc('openWorkspace', { path: '/' });
      expect(prot.error?.code).toBe('E_PROTECTED_DIR');
    } finally {
      sock.close();
    }
  });
});

describe('electronegativity', () => {
  it('finds nothing unexplained in the app', async () => {
    // @ts-expect-error -- a plain ESM script without type declarations
    const { audit } = (await import('./audit-electron.mjs')) as { audit: () => { findings: Any[]; allowed: Any[] } };
    const { findings, allowed } = audit();
    console.log(`electronegativity: ${findings.length} findings, ${allowed.length} allowed with a reason`);
    expect(findings.map((f: Any) => `${f.rule} ${f.file}:${f.line} ${f.message}`)).toEqual([]);
  }, 180_000);
});
