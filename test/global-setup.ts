import { execFileSync } from 'node:child_process';

/** Build the CLI bundle so tests drive exactly what users run. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build-cli.mjs'], { stdio: 'inherit' });
}
