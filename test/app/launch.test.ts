import { describe, expect, it } from 'vitest';
import { foldersFromArgv, foldersFromLaunchRequest, launchRequest } from '../../src/main/electron/launch';
import { CHROMIUM_PROFILE_DIR, electronPaths } from '../../src/main/electron/paths';

describe('launch folders', () => {
  it('reads folder arguments, skipping switches and the app path', () => {
    expect(foldersFromArgv(['electron', 'out/main/index.js', 'proj', '--no-sandbox', '.'], false)).toEqual(['proj']);
    expect(foldersFromArgv(['/Applications/Retrace.app/Contents/MacOS/Retrace', '/a', 'b'], true)).toEqual(['/a', 'b']);
  });

  it('a second instance sends absolute folders, resolved against its own working directory', () => {
    const request = launchRequest(['electron', 'main.js', 'proj', '/abs/other', '--flag'], '/home/me/work', false);
    expect(request).toEqual({ folders: ['/home/me/work/proj', '/abs/other'] });
    // What requestSingleInstanceLock sends must survive JSON (Electron serialises additionalData).
    expect(JSON.parse(JSON.stringify(request))).toEqual(request);
  });

  it('the first instance takes the folders from additionalData, and nothing from a malformed one', () => {
    expect(foldersFromLaunchRequest({ folders: ['/home/me/work/proj'] })).toEqual(['/home/me/work/proj']);
    for (const bad of [undefined, null, 'proj', {}, { folders: 'proj' }, { folders: [3, null] }])
      expect(foldersFromLaunchRequest(bad)).toEqual([]);
    // A relative path has no meaning in the first instance (its working directory is another).
    expect(foldersFromLaunchRequest({ folders: ['proj', '/abs'] })).toEqual(['/abs']);
  });
});

describe('Electron paths', () => {
  it('keeps Chromium’s profile in a subfolder of the shared data directory', () => {
    const paths = electronPaths('/home/me/.config/retrace');
    expect(paths.userData).toBe('/home/me/.config/retrace');
    expect(paths.sessionData).toBe(`/home/me/.config/retrace/${CHROMIUM_PROFILE_DIR}`);
  });
});
