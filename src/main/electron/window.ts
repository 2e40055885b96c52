/**
 * Every security setting of the app's windows, in one place. Only type imports from 'electron', so the unit
 * test can check these settings without the Electron binary; app.ts passes the real BrowserWindow in.
 */
import type { BrowserWindow, BrowserWindowConstructorOptions, WebContents, WebPreferences } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../../shared/csp';

/** The renderer is served from this privileged custom scheme (not file://), so it has a real origin. */
export const APP_SCHEME = 'retrace-app';
export const APP_ORIGIN = `${APP_SCHEME}://app`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;
export { CONTENT_SECURITY_POLICY };

export const SECURE_WEB_PREFERENCES = Object.freeze({
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  enableBlinkFeatures: '',
  safeDialogs: true,
  spellcheck: false,
  // A dropped file never turns into a navigation: the page takes the drop and asks the preload for the
  // folder's path (webUtils.getPathForFile).
  navigateOnDragDrop: false,
} satisfies WebPreferences);

/** `devTools`: whether DevTools can open at all — only for an unpackaged (development) run. */
export function windowOptions(
  preloadPath: string,
  title: string,
  opts: { dark?: boolean; devTools?: boolean } = {},
): BrowserWindowConstructorOptions {
  const dark = opts.dark ?? false;
  return {
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    title,
    show: false,
    // The theme's page colour, so the window never flashes the other theme while it loads.
    backgroundColor: dark ? '#1e1e1e' : '#ffffff',
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: preloadPath, devTools: opts.devTools ?? false },
  };
}

/** The origins the app's own pages come from: the app scheme, plus the dev server under `electron-vite dev`. */
export function appOrigins(devServerUrl: string | undefined): string[] {
  const origins = [APP_ORIGIN];
  if (devServerUrl) origins.push(originOf(devServerUrl)!);
  return origins;
}

/**
 * scheme://host[:port]. Not URL.origin: WHATWG URL gives custom schemes the opaque origin "null", which
 * would make every custom-scheme URL look alike.
 */
function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    return u.host ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

export function isAppUrl(url: string | undefined | null, origins: readonly string[]): boolean {
  if (!url) return false;
  const origin = originOf(url);
  return origin !== null && origins.includes(origin);
}

/**
 * The policy for pages from Vite's dev server under `electron-vite dev`: the production policy, except that
 * Vite's inline React-refresh preamble may run and its hot-reload socket may connect. The built app never
 * gets it: its scheme's handler sends CONTENT_SECURITY_POLICY itself.
 */
export function devServerContentSecurityPolicy(devServerUrl: string): string {
  const directives = new Map(
    CONTENT_SECURITY_POLICY.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(' ')] as const;
    }),
  );
  const { host } = new URL(devServerUrl);
  directives.set('script-src', "'self' 'unsafe-inline'");
  directives.set('connect-src', `'self' ws://${host}`);
  return [...directives].map(([name, values]) => `${name} ${values}`).join('; ');
}

/**
 * The policy the session adds to a response from `url`: the dev policy for the dev server's pages, nothing
 * for anything else (the app scheme sets its own header; no other origin is ever loaded).
 */
export function injectedContentSecurityPolicy(url: string, devServerUrl: string | undefined): string | null {
  if (!devServerUrl) return null;
  return isAppUrl(url, [originOf(devServerUrl)!]) ? devServerContentSecurityPolicy(devServerUrl) : null;
}

/** No navigation away from the app (nor to a dropped file), no new windows, no webviews. */
export function hardenWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Build a hardened window; the caller loads the page once it has registered the window's state. */
export function createHardenedWindow(
  BrowserWindowCtor: typeof BrowserWindow,
  opts: { preloadPath: string; title: string; dark: boolean; devTools: boolean },
): BrowserWindow {
  const win = new BrowserWindowCtor(windowOptions(opts.preloadPath, opts.title, opts));
  hardenWebContents(win.webContents);
  win.once('ready-to-show', () => win.show());
  return win;
}
