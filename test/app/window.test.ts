import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  APP_ORIGIN,
  CONTENT_SECURITY_POLICY,
  SECURE_WEB_PREFERENCES,
  appOrigins,
  droppedPath,
  isAppUrl,
  windowOptions,
} from '../../src/main/electron/window';

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

  it('every window gets exactly those settings plus the preload', () => {
    const opts = windowOptions('/app/out/preload/index.cjs', 'Retrace');
    expect(opts.webPreferences).toEqual({ ...SECURE_WEB_PREFERENCES, preload: '/app/out/preload/index.cjs' });
  });

  it('has the strict content security policy', () => {
    const directives = new Map(
      CONTENT_SECURITY_POLICY.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
    );
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

  it('turns a dropped folder navigation into its path and ignores other URLs', () => {
    expect(droppedPath('file:///home/me/my%20project')).toBe('/home/me/my project');
    expect(droppedPath('https://example.com/')).toBeNull();
    expect(droppedPath('retrace-app://app/index.html')).toBeNull();
  });
});
