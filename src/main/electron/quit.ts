/**
 * Quitting with the service stopped cleanly. Electron does not wait for a promise from a 'will-quit'
 * listener, so the first will-quit is cancelled, the service shut down (for at most `timeoutMs`: a stuck
 * watcher must not keep the app alive), and the app then exits, once. app.exit() emits no second will-quit.
 */
import { reportToStderr, type Report } from './report';

export interface ExitingApp {
  exit(code?: number): void;
}

export function quitAfterShutdown(
  app: ExitingApp,
  shutdown: () => Promise<void>,
  opts: { timeoutMs?: number; report?: Report } = {},
): (event: { preventDefault(): void }) => void {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const report = opts.report ?? reportToStderr;
  let state: 'running' | 'shutting-down' | 'done' = 'running';
  return (event) => {
    if (state === 'done') return;
    event.preventDefault();
    if (state === 'shutting-down') return;
    state = 'shutting-down';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not finish within ${timeoutMs} ms`)), timeoutMs);
    });
    void Promise.race([Promise.resolve().then(shutdown), timeout])
      .catch((error: unknown) => report('shutting down', error))
      .finally(() => {
        clearTimeout(timer);
        state = 'done';
        app.exit(0);
      });
  };
}
