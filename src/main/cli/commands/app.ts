/**
 * `retrace` / `retrace DIR` / `retrace app [DIR]`: open the desktop app (the Electron binary from the
 * `electron` package running out/main/index.js), detached, on the folder if one is named.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { RetraceError } from '../../../shared/errors';
import { resolveWorkspace } from '../../engine/workspace';
import { findBuildOutput } from '../../serve/staticFiles';
import type { Command } from '../command';

export const command: Command = {
  usage: 'app [DIR]',
  options: {},
  positionals: { min: 0, max: 1 },
  async run(ctx) {
    const dataHome = ctx.dataHome();
    const dir = ctx.positionals[0];
    const root = dir === undefined ? undefined : (await resolveWorkspace(dir, { cwd: process.cwd(), dataHome })).root;
    const binary = electronBinary();
    const suggestion = `retrace serve${dir === undefined ? '' : ` ${JSON.stringify(dir)}`}`;
    if (!binary) {
      throw new RetraceError(
        'E_UNSUPPORTED',
        `the Electron binary is not installed (ELECTRON_SKIP_BINARY_DOWNLOAD); use \`${suggestion}\` to open Retrace in a browser`,
      );
    }
    const mainJs = findBuildOutput(import.meta.url, join('main', 'index.js'));
    if (!mainJs)
      throw new RetraceError(
        'E_UNSUPPORTED',
        `the desktop app is not built (run \`npm run build:app\`), or use \`${suggestion}\``,
      );
    const env: NodeJS.ProcessEnv = { ...process.env, RETRACE_HOME: dataHome };
    delete env.ELECTRON_RUN_AS_NODE;
    const child = spawn(binary, [mainJs, ...(root ? [root] : [])], { detached: true, stdio: 'ignore', env });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (e) =>
        reject(new RetraceError('E_UNSUPPORTED', `cannot start Electron (${e.message}); use \`${suggestion}\``)),
      );
    });
    child.unref();
    ctx.out.result({ opened: root ?? null, pid: child.pid ?? null }, () =>
      root ? `opening Retrace on ${root}` : 'opening Retrace',
    );
  },
};

/** The Electron executable the `electron` package downloaded, or null (not installed / download skipped). */
export function electronBinary(): string | null {
  try {
    const pkgDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
    const rel = readFileSync(join(pkgDir, 'path.txt'), 'utf8').trim();
    const exe = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkgDir, 'dist'), rel);
    return existsSync(exe) ? exe : null;
  } catch {
    return null;
  }
}
