/**
 * The specs drive what users run: the bundled CLI and the built renderer. Build the CLI every time (esbuild,
 * a second); build the app only when out/renderer is missing (`npm test` has just built it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './support/retrace';

export default function globalSetup(): void {
  execFileSync(process.execPath, [join(REPO, 'scripts/build-cli.mjs')], { cwd: REPO, stdio: 'inherit' });
  if (!existsSync(join(REPO, 'out/renderer/index.html')) || !existsSync(join(REPO, 'out/main/index.js'))) {
    execFileSync(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
      cwd: REPO,
      stdio: 'inherit',
    });
  }
}
