import { describe, expect, it } from 'vitest';
import { resolveDataHome } from './dataHome';

describe('resolveDataHome', () => {
  const home = '/home/u';
  it('prefers dataDir, then RETRACE_HOME', () => {
    expect(resolveDataHome({ dataDir: '/d', env: { RETRACE_HOME: '/r' }, home, platform: 'linux' })).toBe('/d');
    expect(resolveDataHome({ env: { RETRACE_HOME: '/r' }, home, platform: 'linux' })).toBe('/r');
    expect(resolveDataHome({ env: { RETRACE_HOME: '~/x' }, home, platform: 'linux' })).toBe('/home/u/x');
    expect(resolveDataHome({ env: { RETRACE_HOME: '  ' }, home, platform: 'linux' })).toBe('/home/u/.config/retrace');
  });
  it('uses the desktop app data folder per OS', () => {
    expect(resolveDataHome({ env: {}, home, platform: 'linux' })).toBe('/home/u/.config/retrace');
    expect(resolveDataHome({ env: { XDG_CONFIG_HOME: '/xdg' }, home, platform: 'linux' })).toBe('/xdg/retrace');
    expect(resolveDataHome({ env: { XDG_CONFIG_HOME: 'rel' }, home, platform: 'linux' })).toBe(
      '/home/u/.config/retrace',
    );
    expect(resolveDataHome({ env: {}, home, platform: 'darwin' })).toBe('/home/u/Library/Application Support/retrace');
    expect(
      resolveDataHome({ env: { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, home: 'C:\\Users\\u', platform: 'win32' }),
    ).toBe('C:\\Users\\u\\AppData\\Roaming\\retrace');
  });
});
