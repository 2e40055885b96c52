/**
 * Where the desktop app keeps things. userData is the data directory the CLI shares; Chromium's own profile
 * (cookies, caches, local storage, GPU cache — whatever a Session writes) goes to a subfolder of it, so the
 * data directory holds Retrace's data and one folder for the browser, never the two mixed.
 */
import { join } from 'node:path';

export const CHROMIUM_PROFILE_DIR = 'chromium-profile';

export function electronPaths(dataHome: string): { userData: string; sessionData: string } {
  return { userData: dataHome, sessionData: join(dataHome, CHROMIUM_PROFILE_DIR) };
}
