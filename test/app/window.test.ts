import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  CONTENT_SECURITY_POLICY,
  SECURE_WEB_PREFERENCES,
  appOrigins,
  devServerContentSecurityPolicy,
  injectedContentSecurityPolicy,
  isAppUrl,
  windowOptions,
} from '../../src/main/electron/window';

function directivesOf(policy: string): Map<string, string> {
  return new Map(
    policy.split(';').map((d) => {
      const [name, ...values] = d.trim().split(/\s+/);
      return [name!, values.join(' ')] as const;
    }),
  );
}

describe('window security settings', () => {
  it('isolates and sandboxes the renderer, with no Node in any frame or worker', () => {
    expect(SECURE_WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
    });
    expect(Object.isFrozen(SECURE_WEB_PREFERENCES)).toBe(true);
  });

  it('every window gets exactly those settings plus the preload, with DevTools off unless asked for', () => {
    const opts = windowOptions('/app/out/preload/index.cjs', 'Retrace');
    expect(opts.webPreferences).toEqual({
      ...SECURE_WEB_PREFERENCES,
      preload: '/app/out/preload/index.cjs',
      devTools: false,
    });
    expect(windowOptions('/p.cjs', 'Retrace', { devTools: true }).webPreferences?.devTools).toBe(true);
    expect(windowOptions('/p.cjs', 'Retrace', { dark: true }).backgroundColor).toBe('#1e1e1e');
  });

  it('a dropped file never becomes a navigation (the preload reads its path instead)', () => {
    expect(SECURE_WEB_PREFERENCES.navigateOnDragDrop).toBe(false);
  });

  it('has the strict content security policy', () => {
    const directives = directivesOf(CONTENT_SECURITY_POLICY);
    expect(directives.get('default-src')).toBe("'self'");
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('style-src')).toBe("'self' 'unsafe-inline'");
    expect(directives.get('worker-src')).toBe("'self' blob:");
    expect(directives.get('img-src')).toBe("'self' data:");
    expect(directives.get('font-src')).toBe("'self' data:");
    expect(directives.get('object-src')).toBe("'none'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|\*/);
  });

  it('trusts only the app origin (and the dev server when one runs)', () => {
    const prod = appOrigins(undefined);
    expect(isAppUrl(APP_ENTRY_URL, prod)).toBe(true);
    expect(isAppUrl(`${APP_ORIGIN}/assets/x.js`, prod)).toBe(true);
    for (const url of [
      'file:///etc/passwd',
      'http://localhost:5173/',
      'https://example.com/',
      'retrace-app://other/',
      '',
      undefined,
      'not a url',
    ]) {
      expect(isAppUrl(url, prod)).toBe(false);
    }
    const dev = appOrigins('http://localhost:5173/');
    expect(isAppUrl('http://localhost:5173/index.html', dev)).toBe(true);
    expect(isAppUrl('http://localhost:5174/index.html', dev)).toBe(false);
  });

  it('never injects the production policy into the dev server’s pages (it would block Vite’s preamble)', () => {
    const dev = 'http://localhost:5173/';
    const injected = injectedContentSecurityPolicy('http://localhost:5173/index.html', dev);
    expect(injected).toBe(devServerContentSecurityPolicy(dev));
    const directives = directivesOf(injected!);
    expect(directives.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(directives.get('connect-src')).toBe("'self' ws://localhost:5173");
    // Everything else stays as strict as production.
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('default-src')).toBe("'self'");
    expect(injected).not.toMatch(/unsafe-eval/);
  });

  it('injects nothing into the built app’s responses, nor when no dev server runs', () => {
    expect(injectedContentSecurityPolicy(APP_ENTRY_URL, undefined)).toBeNull();
    expect(injectedContentSecurityPolicy(APP_ENTRY_URL, 'http://localhost:5173/')).toBeNull();
    expect(injectedContentSecurityPolicy('https://example.com/', 'http://localhost:5173/')).toBeNull();
  });
});
