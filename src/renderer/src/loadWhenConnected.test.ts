/**
 * A lazy view's code asked for while `retrace serve` is down is asked for again once the connection is back
 * (the e2e "restarts on the same port" test blanked the window before: a failed chunk unmounted everything).
 */
import { describe, expect, it } from 'vitest';
import { loadWhenConnected } from './loadWhenConnected';
import type { Connection, ConnectionState } from './wsClient';

function switchable(initial: ConnectionState) {
  let state = initial;
  const watchers = new Set<() => void>();
  const connection: Connection = {
    state: () => state,
    subscribe(w) {
      watchers.add(w);
      return () => watchers.delete(w);
    },
  };
  const set = (next: ConnectionState) => {
    state = next;
    for (const w of [...watchers]) w();
  };
  return { connection, set, watchers };
}

describe('loadWhenConnected', () => {
  it('loads again once a dropped connection is back, and not before', async () => {
    const { connection, set, watchers } = switchable('reconnecting');
    let calls = 0;
    const loading = loadWhenConnected(async () => {
      calls++;
      if (connection.state() !== 'connected') throw new Error('Failed to fetch dynamically imported module');
      return 'view';
    }, connection);
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(1);
    set('disconnected');
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(1);
    set('connected');
    await expect(loading).resolves.toBe('view');
    expect(calls).toBe(2);
    expect(watchers.size).toBe(0);
  });

  it('retries a failure while the connection still looks up (the socket may learn of the drop later)', async () => {
    const { connection } = switchable('connected');
    let calls = 0;
    const view = await loadWhenConnected(async () => {
      if (++calls < 3) throw new Error('net::ERR_CONNECTION_REFUSED');
      return 'view';
    }, connection);
    expect(view).toBe('view');
    expect(calls).toBe(3);
  });

  it('gives up with the loader’s own error when it keeps failing on a live connection', async () => {
    const { connection } = switchable('connected');
    let calls = 0;
    const failing = loadWhenConnected(() => {
      calls++;
      return Promise.reject(new Error('chunk gone (the app was rebuilt)'));
    }, connection);
    await expect(failing).rejects.toThrow('chunk gone (the app was rebuilt)');
    expect(calls).toBe(4);
  }, 10_000);
});
