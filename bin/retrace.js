#!/usr/bin/env node
// The `retrace` command. The real code is bundled by `npm run build:cli` (run by `npm install` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../out/cli/retrace.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('retrace: the CLI is not built yet; run `npm run build:cli` in the retrace folder\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
const code = await main(process.argv.slice(2));
// Leave as soon as the command is done (once stdout/stderr are flushed): waiting for Node to notice that
// its idle handles are gone costs ~40 ms a call, and the Claude Code hook runs this on every tool call.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
