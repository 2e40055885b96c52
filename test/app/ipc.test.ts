import { describe, expect, it } from 'vitest';
import { registerIpc } from '../../src/main/electron/ipc';
import { APP_ORIGIN, appOrigins, isAppUrl } from '../../src/main/electron/window';
import { API_METHODS, ipcChannel } from '../../src/shared/contract';
import { ok } from '../../src/shared/result';

type Handler = (event: unknown, ...args: unknown[]) => Promise<unknown>;

/** An in-memory ipcMain: a channel → handler table like Electron's. */
function handlerTable() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    ipcMain: {
      handle: (channel: string, h: Handler) => {
        if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
        handlers.set(channel, h);
      },
      removeHandler: (channel: string) => handlers.delete(channel),
    },
  };
}

describe('IPC handlers', () => {
  const origins = appOrigins(undefined);

  it('registers one handler per contract method and nothing else', () => {
    const t = handlerTable();
    const off = registerIpc(t.ipcMain as never, {
      dispatch: async () => ok(null),
      isTrustedUrl: (u) => isAppUrl(u, origins),
    });
    expect([...t.handlers.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort());
    off();
    expect(t.handlers.size).toBe(0);
  });

  it('answers the app’s own frames through dispatch and refuses any other frame', async () => {
    const t = handlerTable();
    const calls: [string, unknown][] = [];
    registerIpc(t.ipcMain as never, {
      dispatch: async (m, a) => {
        calls.push([m, a]);
        return ok('answered');
      },
      isTrustedUrl: (u) => isAppUrl(u, origins),
    });
    const status = t.handlers.get(ipcChannel('status'))!;
    expect(await status({ senderFrame: { url: `${APP_ORIGIN}/index.html` } }, { workspace: 'w' })).toEqual(
      ok('answered'),
    );
    for (const frame of [{ url: 'https://evil.example/' }, { url: 'file:///tmp/x.html' }, null]) {
      const r = (await status({ senderFrame: frame }, { workspace: 'w' })) as { ok: boolean; error?: { code: string } };
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe('E_UNSUPPORTED');
    }
    expect(calls).toEqual([['status', { workspace: 'w' }]]);
  });

  it('turns a throwing handler into an E_INTERNAL result, never a rejected invoke', async () => {
    const t = handlerTable();
    registerIpc(t.ipcMain as never, {
      dispatch: async () => {
        throw new Error('boom');
      },
      isTrustedUrl: () => true,
    });
    const r = await t.handlers.get(ipcChannel('init'))!({ senderFrame: { url: APP_ORIGIN } }, {});
    expect(r).toEqual({ ok: false, error: { code: 'E_INTERNAL', message: 'boom' } });
  });
});
