/**
 * Child-process driver of the Electron smoke test: loads the built main bundle under Node with the
 * RECORDING STAND-IN for `electron`, plays the app's events through it and prints one JSON report.
 *
 *   node --import tsx test/app/electronSmokeRun.ts <config-json> [folder …]
 *
 * The folders are this "launch's" command-line arguments, as `retrace DIR` passes them to Electron.
 */
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StandInConfig, StandInState } from './electronStandIn';

interface Probe {
  /** Played before 'ready', as macOS does when the app is launched by opening a folder with it. */
  openFileBeforeReady?: string;
  secondInstanceFolder?: string;
  openFileMissing?: string;
  /** URLs to pass through the session's onHeadersReceived hook (dev runs only). */
  headersFor?: string[];
}

const [configJson = '{}'] = process.argv.splice(2, 1);
const { probe = {}, ...config } = JSON.parse(configJson) as Partial<StandInConfig> & { probe?: Probe };
(globalThis as unknown as { __retraceStandInConfig: Partial<StandInConfig> }).__retraceStandInConfig = config;
// A packaged app's argv is [app binary, …arguments]: no script path to skip.
if (config.isPackaged) process.argv.splice(1, 1);

const unhandled: string[] = [];
process.on('unhandledRejection', (e) => unhandled.push(e instanceof Error ? e.message : String(e)));

register('./electronStandInHooks.mjs', import.meta.url);
const REPO = join(import.meta.dirname, '../..');
await import(pathToFileURL(join(REPO, 'out/main/index.js')).href);
const standIn = (globalThis as unknown as { __retraceElectronStandIn: StandInState }).__retraceElectronStandIn;

async function until(what: string, done: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const called = (api: string) => standIn.calls.filter((c) => c.api === api);

const report: Record<string, unknown> = {};
const settle = () => new Promise((r) => setTimeout(r, 200));

if (config.gotSingleInstanceLock !== false) {
  if (probe.openFileBeforeReady) standIn.app.emit('open-file', { preventDefault: () => {} }, probe.openFileBeforeReady);
  standIn.emitReady();
  await until('the first window to load', () => called('BrowserWindow.loadURL').length > 0);
  await until('the menu', () => called('Menu.setApplicationMenu').length > 0);

  // What the app scheme serves: index.html and every script and stylesheet it names.
  const serve = standIn.protocolHandlers.get('retrace-app');
  if (serve) {
    const index = await serve(new Request('retrace-app://app/index.html'));
    const html = await index.text();
    const assets = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
    report.index = { status: index.status, csp: index.headers.get('content-security-policy'), assets };
    report.assets = await Promise.all(
      assets.map(async (a) => ({ asset: a, status: (await serve(new Request(`retrace-app://app/${a}`))).status })),
    );
    report.outsideRoot = (await serve(new Request('retrace-app://app/../main/index.js'))).status;
  }

  if (probe.headersFor) {
    report.headers = probe.headersFor.map((url) => {
      let answer: unknown = 'no hook';
      for (const hook of standIn.headersHooks)
        hook({ url, responseHeaders: { 'X-From': ['server'] } }, (r) => (answer = r));
      return { url, answer };
    });
  }
  if (probe.openFileMissing) {
    const before = called('dialog.showErrorBox').length;
    standIn.app.emit('open-file', { preventDefault: () => {} }, probe.openFileMissing);
    await until('the open-file error to be shown', () => called('dialog.showErrorBox').length > before);
  }
  if (probe.secondInstanceFolder) {
    const before = standIn.windows.length;
    standIn.app.emit('second-instance', {}, ['electron', '--original-process-start-time=1', 'ignored'], '/', {
      folders: [probe.secondInstanceFolder],
    });
    await until('a window for the second instance’s folder', () => standIn.windows.length > before);
  }

  let prevented = 0;
  const willQuit = { preventDefault: () => void prevented++ };
  standIn.app.emit('will-quit', willQuit);
  await until('the app to exit after shutdown', () => called('app.exit').length > 0);
  standIn.app.emit('will-quit', willQuit); // after the exit began: must pass through
  await settle();
  report.willQuitPrevented = prevented;
}
await settle();

report.calls = standIn.calls.map((c) => ({
  ...c,
  // Menu templates hold click functions; keep what JSON can carry.
  args: JSON.parse(JSON.stringify(c.args, (_k, v: unknown) => (typeof v === 'function' ? '[function]' : v))),
}));
report.windows = standIn.windows.map((w) => ({ title: w.title, options: w.options }));
report.devCsp = standIn.headersHooks.length;
report.unhandled = unhandled;
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
