/**
 * The renderer-facing API, built from the contract alone. Kept free of `electron` imports so a unit test can
 * check that it exposes exactly the contract's methods (and nothing like a generic `invoke`).
 */
import { API_METHODS, EVENT_CHANNEL, ipcChannel, type ApiMethod } from '../shared/methods';
import type { RetraceApi } from '../shared/contract';
import type { RetraceEvent } from '../shared/model';
import type { Result } from '../shared/result';

/** The slice of Electron's ipcRenderer the bridge needs. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export function buildRetraceApi(ipc: IpcRendererLike): RetraceApi {
  const methods = Object.fromEntries(
    API_METHODS.map((method: ApiMethod) => [
      method,
      // One fixed channel per method; the renderer can never name a channel itself.
      (req: unknown) => ipc.invoke(ipcChannel(method), req) as Promise<Result<unknown>>,
    ]),
  );
  const onEvent = (listener: (event: RetraceEvent) => void): (() => void) => {
    const wrapped = (_event: unknown, payload: unknown) => listener(payload as RetraceEvent);
    ipc.on(EVENT_CHANNEL, wrapped);
    return () => {
      ipc.removeListener(EVENT_CHANNEL, wrapped);
    };
  };
  return Object.freeze({ ...methods, onEvent }) as RetraceApi;
}
