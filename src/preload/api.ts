/**
 * The renderer-facing API, built from the contract alone. Kept free of `electron` imports so a unit test can
 * check that it exposes exactly the contract's methods (and nothing like a generic `invoke`).
 */
import { API_METHODS, EVENT_CHANNEL, ipcChannel, type ApiMethod } from '../shared/methods';
import type { DesktopBridge } from '../shared/contract';
import type { RetraceEvent } from '../shared/model';
import type { Result } from '../shared/result';

/** The slice of Electron's ipcRenderer the bridge needs. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The slice of Electron's webUtils the bridge needs. */
export interface WebUtilsLike {
  getPathForFile(file: File): string;
}

export function buildRetraceApi(ipc: IpcRendererLike, webUtils: WebUtilsLike): DesktopBridge {
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
  // A dropped folder's path, read here because only the preload may call webUtils. It throws for anything
  // that is not a File; the page gets '' instead (as for a File made in JavaScript).
  const pathForFile = (file: File): string => {
    try {
      return webUtils.getPathForFile(file);
    } catch {
      return '';
    }
  };
  return Object.freeze({ ...methods, onEvent, pathForFile }) as DesktopBridge;
}
