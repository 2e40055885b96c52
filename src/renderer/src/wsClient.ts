/**
 * The RetraceApi over the `retrace serve` WebSocket: JSON frames {id, method, args} → {id, result}, plus
 * pushed {event} frames. Same interface as window.retrace, so the rest of the renderer cannot tell them apart.
 */
import { API_METHODS, type ApiMethod } from '../../shared/methods';
import type { RetraceApi } from '../../shared/contract';
import type { RetraceEvent } from '../../shared/model';
import { fail, type Result } from '../../shared/result';

type Pending = { resolve: (r: Result<unknown>) => void };

export function createWsApi(url: string): RetraceApi {
  let socket: WebSocket | null = null;
  let opened: Promise<WebSocket> | null = null;
  let nextId = 1;
  let retryMs = 250;
  const pending = new Map<number, Pending>();
  const listeners = new Set<(e: RetraceEvent) => void>();

  const connect = (): Promise<WebSocket> => {
    opened ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => {
        socket = ws;
        retryMs = 250;
        resolve(ws);
      };
      ws.onmessage = (msg) => onFrame(String(msg.data));
      ws.onclose = () => {
        const wasOpen = socket === ws;
        socket = null;
        opened = null;
        for (const p of pending.values())
          p.resolve(fail({ code: 'E_INTERNAL', message: 'lost the connection to retrace serve' }));
        pending.clear();
        if (!wasOpen) reject(new Error('cannot connect to retrace serve'));
        // Keep the live view alive across a brief drop (laptop sleep): reconnect when someone listens.
        if (listeners.size > 0) {
          setTimeout(() => void connect().catch(() => undefined), retryMs);
          retryMs = Math.min(retryMs * 2, 5000);
        }
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
      return fail({ code: 'E_INTERNAL', message: 'cannot connect to retrace serve (is it still running?)' });
    }
    const id = nextId++;
    return new Promise<Result<unknown>>((resolve) => {
      pending.set(id, { resolve });
      ws.send(JSON.stringify({ id, method, args }));
    });
  };

  const methods = Object.fromEntries(API_METHODS.map((m) => [m, (args: unknown) => call(m, args ?? {})]));
  return {
    ...methods,
    onEvent(listener: (e: RetraceEvent) => void) {
      listeners.add(listener);
      void connect().catch(() => undefined);
      return () => {
        listeners.delete(listener);
      };
    },
  } as unknown as RetraceApi;
}
