/**
 * Loading a view's code (a lazy chunk) that survives a dropped `retrace serve`: a chunk asked for while the
 * server is down (restarted, laptop asleep) is asked for again once the connection is back, instead of failing
 * the view. Chromium does not remember a failed dynamic import, so asking again really fetches it again.
 */
import type { Connection } from './wsClient';

/** Tries while the connection still looks up (the socket may notice a dropped server after the fetch does). */
const RETRY_DELAYS_MS = [250, 1000, 3000];

export async function loadWhenConnected<T>(load: () => Promise<T>, connection: Connection): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (e) {
      if (connection.state() !== 'connected') await whenConnected(connection);
      else if (attempt < RETRY_DELAYS_MS.length) await sleep(RETRY_DELAYS_MS[attempt]!);
      else throw e;
    }
  }
}

function whenConnected(connection: Connection): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = connection.subscribe(() => {
      if (connection.state() !== 'connected') return;
      unsubscribe();
      resolve();
    });
    // Back between the failure and the subscription.
    if (connection.state() === 'connected') {
      unsubscribe();
      resolve();
    }
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
