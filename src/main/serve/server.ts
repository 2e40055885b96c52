/**
 * The HTTP + WebSocket host behind `retrace serve`: the built renderer over HTTP and the contract over a
 * JSON-RPC WebSocket, on 127.0.0.1 only, behind a per-run token. The same dispatch as the Electron IPC.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp';
import type { RetraceEvent } from '../../shared/model';
import { RetraceError } from '../../shared/errors';
import { fail, type Result } from '../../shared/result';
import { checkHostAndOrigin, newToken, splitTokenPath, tokensEqual } from './access';
import { readStaticFile } from './staticFiles';

export type Dispatch = (method: string, rawArgs: unknown) => Promise<Result<unknown>>;
export type Subscribe = (listener: (event: RetraceEvent) => void) => () => void;

export interface ServeHostOptions {
  dispatch: Dispatch;
  subscribe?: Subscribe;
  /** The built renderer (out/renderer); null serves a page that says how to build it. */
  rendererDir: string | null;
  /** 0 or undefined: a free port. */
  port?: number;
  token?: string;
  /** Called once, when the page's first script has been sent: the browser is busy compiling it for a while. */
  onScriptSent?: () => void;
}

export interface ServeHost {
  port: number;
  token: string;
  /** The URL to open: http://127.0.0.1:PORT/TOKEN/ */
  url: string;
  close(): Promise<void>;
}

/** Server → client frames. */
export type ServerFrame = { id: string | number | null; result: Result<unknown> } | { event: RetraceEvent };

const MAX_FRAME_BYTES = 1024 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // The token is in the URL: never leak it through a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Retrace</title>' +
  '<p>The Retrace UI is not built yet. Run <code>npm run build:app</code> in the retrace folder, then restart <code>retrace serve</code>.</p>';

export async function startServeHost(opts: ServeHostOptions): Promise<ServeHost> {
  const token = opts.token ?? newToken();
  let port = 0;
  const sockets = new Set<WebSocket>();
  let scriptSent = false;

  const refuse = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    res.end(text + '\n');
  };

  const server = createServer((req, res) => {
    void handleHttp(req, res).catch(() => {
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.destroy();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const bad = checkHostAndOrigin(req.headers, port);
    if (bad) return refuse(res, 403, `forbidden: ${bad}`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'method not allowed');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    // Browsers ask for /favicon.ico on their own, without the token: answer "no icon" rather than a 403.
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204, { ...SECURITY_HEADERS, 'Cache-Control': 'private, max-age=86400' });
      return void res.end();
    }

    // `/?token=T` is accepted as a convenience and redirected to the path form the page needs.
    if (url.pathname === '/' && url.searchParams.has('token')) {
      if (!tokensEqual(url.searchParams.get('token'), token)) return refuse(res, 403, 'forbidden: bad token');
      res.writeHead(302, { ...SECURITY_HEADERS, Location: `/${token}/`, 'Cache-Control': 'no-store' });
      return void res.end();
    }
    const parts = splitTokenPath(url.pathname);
    if (!parts || !tokensEqual(parts.token, token)) return refuse(res, 403, 'forbidden: missing or bad token');
    if (parts.rest === '') {
      res.writeHead(302, { ...SECURITY_HEADERS, Location: `/${token}/`, 'Cache-Control': 'no-store' });
      return void res.end();
    }
    if (!opts.rendererDir) {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
      });
      return void res.end(req.method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
    }
    const file = await readStaticFile(opts.rendererDir, parts.rest);
    if (!file) return refuse(res, 404, 'not found');
    const isHtml = file.type.startsWith('text/html');
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': file.type,
      'Content-Length': String(file.body.length),
      // Built assets carry content hashes; the page itself must always be fresh.
      'Cache-Control': isHtml ? 'no-store' : 'private, max-age=31536000, immutable',
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    if (file.type.startsWith('text/javascript') && req.method === 'GET' && !scriptSent) {
      scriptSent = true;
      res.once('finish', () => opts.onScriptSent?.());
    }
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const parts = splitTokenPath(url.pathname);
    const ok =
      !checkHostAndOrigin(req.headers, port) &&
      parts !== null &&
      tokensEqual(parts.token, token) &&
      parts.rest === '/ws';
    if (!ok) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
  });

  function send(ws: WebSocket, frame: ServerFrame): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  }

  function onConnection(ws: WebSocket): void {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => sockets.delete(ws));
    ws.on('message', (data, isBinary) => {
      void answer(ws, isBinary ? null : data.toString());
    });
  }

  async function answer(ws: WebSocket, text: string | null): Promise<void> {
    let frame: unknown;
    try {
      frame = text === null ? null : JSON.parse(text);
    } catch {
      frame = null;
    }
    const f = frame as { id?: unknown; method?: unknown; args?: unknown } | null;
    const id = f && (typeof f.id === 'string' || typeof f.id === 'number') ? f.id : null;
    if (!f || typeof f !== 'object' || id === null || typeof f.method !== 'string') {
      return send(ws, { id, result: fail({ code: 'E_USAGE', message: 'expected {id, method, args}' }) });
    }
    let result: Result<unknown>;
    try {
      result = await opts.dispatch(f.method, f.args ?? {});
    } catch (e) {
      result = fail({ code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e) });
    }
    send(ws, { id, result });
  }

  const unsubscribe = opts.subscribe?.((event) => {
    for (const ws of sockets) send(ws, { event });
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException): void => {
      unsubscribe?.();
      reject(listenError(e, opts.port ?? 0));
    };
    server.once('error', failed);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | null = null;
  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/${token}/`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        unsubscribe?.();
        for (const ws of sockets) ws.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A port someone else holds is the user's to choose around, not an internal error. */
function listenError(e: NodeJS.ErrnoException, port: number): Error {
  if (e.code === 'EADDRINUSE')
    return new RetraceError(
      'E_PORT_IN_USE',
      `port ${port} on 127.0.0.1 is already in use: choose another with --port`,
      {
        cause: e,
      },
    );
  return e;
}
