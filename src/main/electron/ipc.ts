/**
 * One ipcMain.handle per contract method (never a generic channel). Each call is accepted only from the
 * app's own frames; the request is validated by the service's dispatch, and the answer is always a Result.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { API_METHODS, ipcChannel, type ApiMethod } from '../../shared/contract';
import { fail, type Result } from '../../shared/result';

export type Dispatch = (method: string, rawArgs: unknown) => Promise<Result<unknown>>;

export interface IpcOptions {
  dispatch: Dispatch;
  /** True for frames that belong to the app (checked on event.senderFrame.url). */
  isTrustedUrl: (url: string | undefined) => boolean;
  /** Methods the Electron host answers itself, per window (init, pickFolder, recentWorkspaces, openWorkspace). */
  hostMethod?: (method: ApiMethod, event: IpcMainInvokeEvent, rawArgs: unknown) => Promise<Result<unknown>> | null;
}

export function registerIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, opts: IpcOptions): () => void {
  for (const method of API_METHODS) {
    ipcMain.handle(ipcChannel(method), async (event, rawArgs: unknown): Promise<Result<unknown>> => {
      // senderFrame is null once the frame navigated away or was destroyed.
      if (!opts.isTrustedUrl(event.senderFrame?.url)) {
        return fail({ code: 'E_UNSUPPORTED', message: 'request from a frame that is not part of Retrace' });
      }
      try {
        return await (opts.hostMethod?.(method, event, rawArgs) ?? opts.dispatch(method, rawArgs));
      } catch (e) {
        return fail({ code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e) });
      }
    });
  }
  return () => {
    for (const method of API_METHODS) ipcMain.removeHandler(ipcChannel(method));
  };
}
