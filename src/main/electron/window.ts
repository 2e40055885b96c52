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
  // A dropped folder becomes a navigation to its file:// URL, which the will-navigate guard turns into
  // "open this folder" (the sandboxed renderer cannot see dropped files' paths) and then cancels.
  navigateOnDragDrop: true,
} satisfies WebPreferences);

export function windowOptions(preloadPath: string, title: string, dark = false): BrowserWindowConstructorOptions {
  return {
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    title,
    show: false,
    // The theme's page colour, so the window never flashes the other theme while it loads.
    backgroundColor: dark ? '#1e1e1e' : '#ffffff',
    webPreferences: { ...SECURE_WEB_PREFERENCES, preload: preloadPath },
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

/** A dropped folder arrives as a file:// navigation; return its path, or null for any other URL. */
export function droppedPath(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'file:') return null;
    return decodeURIComponent(u.pathname.replace(/^\/([A-Za-z]:)/, '$1'));
  } catch {
    return null;
  }
}

/**
 * No navigation away from the app, no new windows, no webviews. `onDrop` receives the path of a dropped
 * file or folder (the navigation itself is always cancelled).
 */
export function hardenWebContents(contents: WebContents, onDrop: (path: string) => void): void {
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    const dropped = droppedPath(url);
    if (dropped) onDrop(dropped);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Build a hardened window; the caller loads the page once it has registered the window's state. */
export function createHardenedWindow(
  BrowserWindowCtor: typeof BrowserWindow,
  opts: { preloadPath: string; title: string; dark: boolean; onDrop: (path: string) => void },
): BrowserWindow {
  const win = new BrowserWindowCtor(windowOptions(opts.preloadPath, opts.title, opts.dark));
  hardenWebContents(win.webContents, opts.onDrop);
  win.once('ready-to-show', () => win.show());
  return win;
}
