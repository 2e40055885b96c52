import os from 'node:os';
import path from 'node:path';

export interface DataHomeOptions {
  /** An explicit `--data-dir`; wins over everything. */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  platform?: string;
  home?: string;
}

/**
 * The one data directory shared by the desktop app and the CLI.
 * Order: an explicit dataDir, then RETRACE_HOME, then the desktop app's userData folder for this OS
 * (the app calls app.setPath('userData', resolveDataHome()) so both always agree).
 */
export function resolveDataHome(opts: DataHomeOptions = {}): string {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? os.homedir();
  const pathApi = platform === 'win32' ? path.win32 : path.posix;

  const explicit = nonEmpty(opts.dataDir) ?? nonEmpty(env.RETRACE_HOME);
  if (explicit) return pathApi.resolve(expandHome(explicit, home, pathApi));

  switch (platform) {
    case 'darwin':
      return pathApi.join(home, 'Library', 'Application Support', 'retrace');
    case 'win32':
      return pathApi.join(nonEmpty(env.APPDATA) ?? pathApi.join(home, 'AppData', 'Roaming'), 'retrace');
    default: {
      const xdg = nonEmpty(env.XDG_CONFIG_HOME);
      // XDG says a relative XDG_CONFIG_HOME is invalid and must be ignored.
      const base = xdg && pathApi.isAbsolute(xdg) ? xdg : pathApi.join(home, '.config');
      return pathApi.join(base, 'retrace');
    }
  }
}

/** "~" and "~/x" mean the user's home; "~user" is left alone. */
export function expandHome(p: string, home: string = os.homedir(), pathApi: path.PlatformPath = path): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return pathApi.join(home, p.slice(2));
  return p;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== '' ? s : undefined;
}
