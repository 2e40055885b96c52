import { describe, expect, it } from 'vitest';
import { Settler } from './settle';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Settler', () => {
  it('runs once after a burst, not during it', async () => {
    const runs: number[] = [];
    const s = new Settler({ quietMs: 250, maxWaitMs: 5_000, onSettle: async () => (runs.push(Date.now()), 'done') });
    const start = Date.now();
    for (let i = 0; i < 10; i++) {
      s.poke();
      await sleep(20);
    }
    await sleep(600);
    expect(runs).toHaveLength(1);
    // not before the last poke (~180 ms in) plus the quiet period
    expect(runs[0]! - start).toBeGreaterThanOrEqual(180 + 250 - 20);
    await s.stop();
  });

  it('a constant trickle still settles at the max wait', async () => {
    let runs = 0;
    const s = new Settler({ quietMs: 100, maxWaitMs: 250, onSettle: async () => (runs++, 'done') });
    const end = Date.now() + 900;
    while (Date.now() < end) {
      s.poke();
      await sleep(20);
    }
    expect(runs).toBeGreaterThanOrEqual(2);
    await s.stop();
  });

  it("'retry' tries again after another quiet period without new pokes; stop() cancels", async () => {
    let runs = 0;
    const s = new Settler({ quietMs: 50, maxWaitMs: 1_000, onSettle: async () => (++runs < 3 ? 'retry' : 'done') });
    s.poke();
    await sleep(400);
    expect(runs).toBe(3);
    s.poke();
    await s.stop();
    await sleep(150);
    expect(runs).toBe(3);
  });

  it('pokes during a run start the next burst instead of a second run at once', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const s = new Settler({
      quietMs: 30,
      maxWaitMs: 1_000,
      onSettle: async () => {
        runs++;
        most = Math.max(most, ++active);
        await sleep(100);
        active--;
        return 'done';
      },
    });
    s.poke();
    await sleep(60); // the run has begun
    s.poke();
    s.poke();
    await sleep(400);
    expect([runs, most]).toEqual([2, 1]);
    await s.stop();
  });
});
