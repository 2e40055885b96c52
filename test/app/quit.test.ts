import { describe, expect, it } from 'vitest';
import { quitAfterShutdown } from '../../src/main/electron/quit';
import { settle } from '../../src/main/electron/report';

function willQuitEvent() {
  let prevented = 0;
  return {
    event: { preventDefault: () => void prevented++ },
    prevented: () => prevented,
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('quitting', () => {
  it('holds the quit until the service has shut down, then exits once', async () => {
    const exits: number[] = [];
    const steps: string[] = [];
    let finish!: () => void;
    const onWillQuit = quitAfterShutdown({ exit: (code) => exits.push(code ?? 0) }, () => {
      steps.push('shutdown started');
      return new Promise<void>((r) => (finish = r));
    });
    const first = willQuitEvent();
    onWillQuit(first.event);
    expect(first.prevented()).toBe(1);
    await tick();
    expect(steps).toEqual(['shutdown started']);
    expect(exits).toEqual([]);
    // A second Cmd+Q meanwhile is held too, and starts no second shutdown.
    const second = willQuitEvent();
    onWillQuit(second.event);
    expect(second.prevented()).toBe(1);
    finish();
    await tick();
    expect(steps).toEqual(['shutdown started']);
    expect(exits).toEqual([0]);
    // After the exit began, a will-quit passes through untouched.
    const late = willQuitEvent();
    onWillQuit(late.event);
    expect(late.prevented()).toBe(0);
    expect(exits).toEqual([0]);
  });

  it('a failing shutdown is reported and the app still exits', async () => {
    const exits: number[] = [];
    const reports: string[] = [];
    const onWillQuit = quitAfterShutdown(
      { exit: (code) => exits.push(code ?? 0) },
      () => Promise.reject(new Error('watcher stuck')),
      { report: (what, e) => reports.push(`${what}: ${(e as Error).message}`) },
    );
    onWillQuit(willQuitEvent().event);
    await tick();
    await tick();
    expect(reports).toEqual(['shutting down: watcher stuck']);
    expect(exits).toEqual([0]);
  });

  it('a shutdown that never ends does not keep the app alive', async () => {
    const exits: number[] = [];
    const reports: string[] = [];
    const onWillQuit = quitAfterShutdown({ exit: (code) => exits.push(code ?? 0) }, () => new Promise(() => {}), {
      timeoutMs: 20,
      report: (what, e) => reports.push(`${what}: ${(e as Error).message}`),
    });
    onWillQuit(willQuitEvent().event);
    await new Promise((r) => setTimeout(r, 60));
    expect(reports).toEqual(['shutting down: did not finish within 20 ms']);
    expect(exits).toEqual([0]);
  });
});

describe('background work from event handlers', () => {
  it('a rejection is reported, never left unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const reports: string[] = [];
      settle(
        Promise.reject(new Error('ERR_FAILED (-2) loading retrace-app://app/index.html')),
        'loading the window',
        (w, e) => reports.push(`${w}: ${(e as Error).message}`),
      );
      await new Promise((r) => setTimeout(r, 10));
      expect(reports).toEqual(['loading the window: ERR_FAILED (-2) loading retrace-app://app/index.html']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
