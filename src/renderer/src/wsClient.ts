/**
 * The RetraceApi over the `retrace serve` WebSocket: JSON frames {id, method, args} → {id, result}, plus
 * pushed {event} frames. Same interface as window.retrace, so the rest of the renderer cannot tell them apart.
 *
 * A dropped connection (laptop sleep, `retrace serve` restarted on the same port) is retried with backoff
 * for as long as the page listens for events; `connection` says whether it is up, so the page can show it and
 * catch up on what it missed once it is back.
 */
import { API_METHODS, type ApiMethod } from '../../shared/methods';
import type { RetraceApi } from '../../shared/contract';
import type { RetraceEvent } from '../../shared/model';
import { fail, type Result } from '../../shared/result';

/** reconnecting: dropped, retrying at once and then more slowly; disconnected: still down after a while. */
export type ConnectionState = 'connected' | 'reconnecting' | 'disconnected';

export interface Connection {
  state(): ConnectionState;
  /** Called on every change of state. */
  subscribe(listener: () => void): () => void;
}

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;
/** Down for longer than this: say "Disconnected" (and keep retrying). */
const RECONNECTING_FOR_MS = 8000;

const LOST = 'lost the connection to retrace serve';
const CANNOT_CONNECT = 'cannot connect to retrace serve (is it still running?)';

/** An answer that only says the connection was down: moot once it is back. */
export function isConnectionError(e: { message: string }): boolean {
  return e.message === LOST || e.message === CANNOT_CONNECT;
}

/** The delay before retry number `attempt` (0-based): doubling from 250 ms, at most 5 s. */
export function retryDelay(attempt: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempt));
}

type Pending = { resolve: (r: Result<unknown>) => void };

export function createWsApi(url: string): {
  api: RetraceApi;
  connection: Connection;
  /** Connect now, before the first request (which would otherwise wait for the handshake). */
  open(): void;
} {
  let socket: WebSocket | null = null;
  let opened: Promise<WebSocket> | null = null;
  let nextId = 1;
  let attempt = 0;
  let downSince: number | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let state: ConnectionState = 'connected';
  const pending = new Map<number, Pending>();
  const listeners = new Set<(e: RetraceEvent) => void>();
  const watchers = new Set<() => void>();

  const setState = (next: ConnectionState) => {
    if (next === state) return;
    state = next;
    for (const w of watchers) w();
  };

  const scheduleRetry = () => {
    if (retryTimer !== null || listeners.size === 0) return;
    downSince ??= Date.now();
    setState(Date.now() - downSince > RECONNECTING_FOR_MS ? 'disconnected' : 'reconnecting');
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void connect().catch(() => undefined);
    }, retryDelay(attempt++));
  };

  const connect = (): Promise<WebSocket> => {
    opened ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        socket = ws;
        attempt = 0;
        downSince = null;
        resolve(ws);
        setState('connected');
      };
      ws.onmessage = (msg) => onFrame(String(msg.data));
      ws.onclose = () => {
        const wasOpen = socket === ws;
        socket = null;
        opened = null;
        for (const p of pending.values()) p.resolve(fail({ code: 'E_INTERNAL', message: LOST }));
        pending.clear();
        if (!wasOpen) reject(new Error('cannot connect to retrace serve'));
        scheduleRetry();
      };
    });
    return opened;
  };

  const onFrame = (text: string) => {
    let frame: { id?: number; result?: Result<unknown>; event?: RetraceEvent };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    if (frame.event) {
      for (const l of listeners) l(frame.event);
      return;
    }
    if (typeof frame.id === 'number' && frame.result) {
      pending.get(frame.id)?.resolve(frame.result);
      pending.delete(frame.id);
    }
  };

  const call = async (method: ApiMethod, args: unknown): Promise<Result<unknown>> => {
    let ws: WebSocket;
    try {
      ws = socket ?? (await connect());
    } catch {
      return fail({ code: 'E_INTERNAL', message: CANNOT_CONNECT });
    }
    const id = nextId++;
    return new Promise<Result<unknown>>((resolve) => {
      pending.set(id, { resolve });
      ws.send(JSON.stringify({ id, method, args }));
    });
  };

  const methods = Object.fromEntries(API_METHODS.map((m) => [m, (args: unknown) => call(m, args ?? {})]));
  const api = {
    ...methods,
    onEvent(listener: (e: RetraceEvent) => void) {
      listeners.add(listener);
      void connect().catch(() => undefined);
      return () => {
        listeners.delete(listener);
      };
    },
  } as unknown as RetraceApi;
  const connection: Connection = {
    state: () => state,
    subscribe(w) {
      watchers.add(w);
      return () => {
        watchers.delete(w);
      };
    },
  };
  return { api, connection, open: () => void connect().catch(() => undefined) };
}
