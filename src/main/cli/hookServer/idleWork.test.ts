import { describe, expect, it } from 'vitest';
import { IdleWork } from './idleWork';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('IdleWork (the hook server between calls)', () => {
  it('runs a one-off job (maintenance) once, only while no call is pending', async () => {
    let busy = true;
    const outcomes: string[] = [];
    const work = new IdleWork(
      () => !busy,
      (key, outcome) => outcomes.push(`${key} ${outcome}`),
    );
    let runs = 0;
    work.once('maintenance a', async () => {
      runs++;
    });
    work.once('maintenance a', async () => {
      runs += 10; // a second schedule while one is pending is the same run
    });
    await sleep(100);
    expect(runs, 'not while a call is pending').toBe(0);
    busy = false;
    work.soon();
    await sleep(100);
    expect(runs).toBe(1);
    work.soon();
    await sleep(100);
    expect(runs, 'forgotten once run').toBe(1);
    expect(outcomes).toEqual(['maintenance a done']);
  });

  it('keeps looking at a refresh on each tick, and reports a failed one-off job without stopping', async () => {
    const outcomes: string[] = [];
    const work = new IdleWork(
      () => true,
      (key, outcome) => outcomes.push(`${key} ${outcome}`),
    );
    let refreshes = 0;
    work.once('maintenance b', () => Promise.reject(new Error('disk full')));
    work.note('ws', async () => {
      refreshes++;
      return 'not-due';
    });
    await sleep(100);
    work.soon();
    await sleep(100);
    expect(refreshes).toBe(2);
    expect(outcomes).toEqual(['maintenance b failed', 'ws not-due', 'ws not-due']);
  });
});
