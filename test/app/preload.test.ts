import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRetraceApi, type IpcRendererLike, type WebUtilsLike } from '../../src/preload/api';
import { API_METHODS, EVENT_CHANNEL, ipcChannel } from '../../src/shared/contract';

/** An in-memory ipcRenderer that records what the bridge does. */
function recordingIpc() {
  const invoked: { channel: string; args: unknown[] }[] = [];
  const listeners = new Map<string, Set<(e: unknown, ...a: unknown[]) => void>>();
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      invoked.push({ channel, args });
      return { ok: true, value: channel };
    },
    on: (channel, l) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(l)),
    removeListener: (channel, l) => listeners.get(channel)?.delete(l),
  };
  return { ipc, invoked, listeners };
}

/** Electron's webUtils.getPathForFile, as documented: a path for a File from disk, a throw for anything else. */
const diskFiles = new WeakMap<object, string>();
const webUtils: WebUtilsLike = {
  getPathForFile: (file) => {
    if (!(file instanceof File)) throw new TypeError('Error processing argument at index 0, conversion failure');
    return diskFiles.get(file) ?? '';
  },
};

describe('preload bridge', () => {
  it('exposes exactly the contract methods, onEvent and pathForFile — no generic invoke', () => {
    const api = buildRetraceApi(recordingIpc().ipc, webUtils);
    expect(Object.keys(api).sort()).toEqual([...API_METHODS, 'onEvent', 'pathForFile'].sort());
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('send');
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('sends each method on its own channel with the request unchanged', async () => {
    const { ipc, invoked } = recordingIpc();
    const api = buildRetraceApi(ipc, webUtils);
    const r = await api.status({ workspace: 'ws-1' });
    expect(r).toEqual({ ok: true, value: ipcChannel('status') });
    await api.timeline({ workspace: 'ws-1', session: 's-1', offset: 5 });
    expect(invoked).toEqual([
      { channel: 'retrace:status', args: [{ workspace: 'ws-1' }] },
      { channel: 'retrace:timeline', args: [{ workspace: 'ws-1', session: 's-1', offset: 5 }] },
    ]);
  });

  it('delivers pushed events and unsubscribes', () => {
    const { ipc, listeners } = recordingIpc();
    const api = buildRetraceApi(ipc, webUtils);
    const seen: unknown[] = [];
    const off = api.onEvent((e) => seen.push(e));
    const event = { type: 'files-changed', workspace: 'ws-1' };
    for (const l of listeners.get(EVENT_CHANNEL)!) l({ sender: 'ignored' }, event);
    expect(seen).toEqual([event]);
    off();
    expect(listeners.get(EVENT_CHANNEL)!.size).toBe(0);
  });

  it('gives the page a dropped folder’s path through webUtils, and "" for anything else', () => {
    const api = buildRetraceApi(recordingIpc().ipc, webUtils);
    const dropped = new File([], 'my project');
    diskFiles.set(dropped, '/home/me/my project');
    expect(api.pathForFile(dropped)).toBe('/home/me/my project');
    expect(api.pathForFile(new File(['made in JS'], 'x.txt'))).toBe('');
    expect(api.pathForFile({ name: 'not a file' } as unknown as File)).toBe('');
  });

  const built = join(import.meta.dirname, '../../out/preload/index.cjs');
  it.skipIf(!existsSync(built))('the built preload is one CommonJS file that requires only electron', () => {
    const code = readFileSync(built, 'utf8');
    const required = [...code.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(new Set(['electron']));
    expect(code).not.toMatch(/^\s*import\s|\bimport\(/m);
  });
});
