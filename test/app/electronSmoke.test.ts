/**
 * SMOKE TEST of the built Electron main bundle, run under plain Node with a RECORDING STAND-IN for the
 * `electron` module (electronStandIn.ts), because the Electron binary cannot be downloaded here. It proves
 * that out/main/index.js loads and starts, that the preload and renderer files it points at exist and are
 * served, that the app scheme is registered before 'ready', that the menu uses only real roles, and how the
 * bundle handles launch, second instance, open-file, failed loads and quitting. It says nothing about how
 * Electron itself behaves: that is e2e/electron.spec.ts, skipped here for want of the binary.
 *
 * Needs the build (`npx electron-vite build`); skipped, saying so, without it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MenuItemConstructorOptions } from 'electron';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp';
import { devServerContentSecurityPolicy } from '../../src/main/electron/window';
import { ELECTRON_MENU_ROLES } from './reservedKeys';

const REPO = join(import.meta.dirname, '../..');
const BUNDLE = join(REPO, 'out/main/index.js');
/** tsx's loader by URL: the second-instance run starts in another working directory. */
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
const built = existsSync(BUNDLE);
if (!built) console.log('electron smoke: skipped — out/main/index.js absent (run `npx electron-vite build` first)');

interface Call {
  api: string;
  args: unknown[];
  beforeReady: boolean;
}
interface Report {
  calls: Call[];
  windows: { title: string; options: { webPreferences: Record<string, unknown> } }[];
  index?: { status: number; csp: string | null; assets: string[] };
  assets?: { asset: string; status: number }[];
  outsideRoot?: number;
  headers?: { url: string; answer: { responseHeaders?: Record<string, string[]> } }[];
  willQuitPrevented?: number;
  unhandled: string[];
  stderr: string;
}

/** The test's own environment, minus a dev server it may have been started under. */
const { ELECTRON_RENDERER_URL: _devServer, ...withoutDevServer } = process.env;

const temp = mkdtempSync(join(tmpdir(), 'retrace-electron-smoke-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** One launch of the bundle in a child process; its report, plus what it wrote to stderr (the app's log). */
function run(name: string, config: object, opts: { args?: string[]; cwd?: string; env?: object } = {}): Report {
  const child = spawnSync(
    process.execPath,
    ['--import', TSX, join(REPO, 'test/app/electronSmokeRun.ts'), JSON.stringify(config), ...(opts.args ?? [])],
    {
      cwd: opts.cwd ?? REPO,
      encoding: 'utf8',
      env: { ...withoutDevServer, RETRACE_HOME: join(temp, name, 'home'), ...opts.env },
      timeout: 60_000,
    },
  );
  if (child.status !== 0) throw new Error(`smoke run ${name} failed (${child.status}):\n${child.stderr}`);
  return { ...(JSON.parse(child.stdout.trim().split('\n').pop()!) as Report), stderr: child.stderr };
}

const callsOf = (r: Report, api: string) => r.calls.filter((c) => c.api === api);
const templateOf = (r: Report) => callsOf(r, 'Menu.buildFromTemplate').at(-1)!.args[0] as MenuItemConstructorOptions[];
const items = (t: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
  t.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? items(i.submenu) : [])]);

describe.skipIf(!built)('Electron main bundle under the recording stand-in (smoke test, not Electron)', () => {
  const project = join(temp, 'proj');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'a.txt'), 'one\n');
  const missing = join(temp, 'no-such-folder');

  let primary: Report;
  it('loads and starts (unpackaged run, first load failing, open-file and second instance played)', () => {
    primary = run('primary', {
      firstLoadFails: true,
      probe: { openFileMissing: missing, secondInstanceFolder: project },
    });
    expect(primary.unhandled).toEqual([]);
  }, 90_000);

  it('registers the app scheme and the data paths before ready, and serves only after it', () => {
    const schemes = callsOf(primary, 'protocol.registerSchemesAsPrivileged');
    expect(schemes).toHaveLength(1);
    expect(schemes[0]!.beforeReady).toBe(true);
    expect(schemes[0]!.args[0]).toEqual([expect.objectContaining({ scheme: 'retrace-app' })]);
    expect(callsOf(primary, 'protocol.handle').map((c) => c.beforeReady)).toEqual([false]);
    const paths = Object.fromEntries(callsOf(primary, 'app.setPath').map((c) => [c.args[0], c]));
    const home = join(temp, 'primary', 'home');
    expect(paths.userData).toMatchObject({ args: ['userData', home], beforeReady: true });
    expect(paths.sessionData).toMatchObject({
      args: ['sessionData', join(home, 'chromium-profile')],
      beforeReady: true,
    });
    expect(existsSync(join(home, 'chromium-profile'))).toBe(true);
  });

  it('points at a preload and a renderer that exist, and serves index.html and its assets with the CSP', () => {
    const window = primary.windows[0]!;
    const preload = window.options.webPreferences.preload as string;
    expect(preload).toBe(join(REPO, 'out/preload/index.cjs'));
    expect(existsSync(preload)).toBe(true);
    expect(window.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, devTools: true });
    expect(callsOf(primary, 'BrowserWindow.loadURL')[0]!.args).toEqual(['retrace-app://app/index.html']);
    expect(primary.index).toMatchObject({ status: 200, csp: CONTENT_SECURITY_POLICY });
    expect(primary.index!.assets.some((a) => a.endsWith('.js'))).toBe(true);
    for (const a of primary.assets!) {
      expect(a.status, a.asset).toBe(200);
      expect(existsSync(join(REPO, 'out/renderer', a.asset)), a.asset).toBe(true);
    }
    expect(primary.outsideRoot).toBe(404);
  });

  it('builds its menu from real roles only (DevTools present in this unpackaged run)', () => {
    const roles = items(templateOf(primary)).flatMap((i) => (i.role ? [i.role] : []));
    expect(roles.filter((r) => !ELECTRON_MENU_ROLES.has(r))).toEqual([]);
    expect(roles).toContain('toggleDevTools');
  });

  it('reports a failed load and a missing open-file path instead of leaving them unhandled', () => {
    expect(primary.stderr).toMatch(/retrace: loading the window: ERR_FAILED/);
    const shown = callsOf(primary, 'dialog.showErrorBox').map((c) => String(c.args[1]));
    expect(shown.some((m) => m.includes(missing) && m.includes('ENOENT'))).toBe(true);
    expect(primary.unhandled).toEqual([]);
  });

  it('opens the second instance’s folders from additionalData, not from its argv', () => {
    expect(primary.windows.map((w) => w.title)).toContain('proj — Retrace');
    // The argv it was given ("ignored") never became a folder: no second error window, no dialog about it.
    expect(primary.windows).toHaveLength(2);
    expect(callsOf(primary, 'dialog.showErrorBox').some((c) => String(c.args[1]).includes('ignored'))).toBe(false);
  });

  it('holds the first will-quit until the service is shut down, then exits once', () => {
    expect(primary.willQuitPrevented).toBe(1);
    expect(callsOf(primary, 'app.exit').map((c) => c.args)).toEqual([[0]]);
  });

  it('a packaged build has no DevTools (menu or window); a folder opened with the app gets the only window', () => {
    // Launched the macOS way, by opening a folder with the app: its window is the only one.
    const packaged = run('packaged', { isPackaged: true, probe: { openFileBeforeReady: project } });
    expect(packaged.unhandled).toEqual([]);
    expect(packaged.windows.map((w) => w.title)).toEqual(['proj — Retrace']);
    const roles = items(templateOf(packaged)).flatMap((i) => (i.role ? [i.role] : []));
    expect(roles).not.toContain('toggleDevTools');
    expect(roles).not.toContain('reload');
    expect(packaged.windows[0]!.options.webPreferences.devTools).toBe(false);
  }, 60_000);

  it('a second instance hands its folders, made absolute, to the first as additionalData and quits', () => {
    const second = run(
      'second',
      { gotSingleInstanceLock: false },
      { args: ['rel/proj', '/abs/x', '--flag'], cwd: temp },
    );
    expect(callsOf(second, 'app.requestSingleInstanceLock').map((c) => c.args[0])).toEqual([
      { folders: [join(temp, 'rel/proj'), '/abs/x'] },
    ]);
    expect(callsOf(second, 'app.quit')).toHaveLength(1);
    expect(second.windows).toEqual([]);
    expect(callsOf(second, 'protocol.handle')).toEqual([]);
  }, 60_000);

  it('under `electron-vite dev` the Vite server gets the dev policy, and nothing else is touched', () => {
    const dev = run(
      'dev',
      { probe: { headersFor: ['http://localhost:5173/index.html', 'retrace-app://app/index.html'] } },
      { env: { ELECTRON_RENDERER_URL: 'http://localhost:5173' } },
    );
    expect(callsOf(dev, 'BrowserWindow.loadURL')[0]!.args).toEqual(['http://localhost:5173']);
    const [vite, app] = dev.headers!;
    expect(vite!.answer.responseHeaders).toEqual({
      'X-From': ['server'],
      'Content-Security-Policy': [devServerContentSecurityPolicy('http://localhost:5173')],
    });
    expect(app!.answer).toEqual({});
  }, 60_000);
});
