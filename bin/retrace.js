#!/usr/bin/env node
// The `retrace` command. The real code is bundled by `npm run build:cli` (run by `npm install` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../out/cli/retrace.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('retrace: the CLI is not built yet; run `npm run build:cli` in the retrace folder\n');
  process.exit(1);
}
const argv = process.argv.slice(2);
// `retrace hook …` runs on every tool call of the agent: its small client asks the resident hook server
// and loads the full CLI only when it has to run the hook itself.
const client = new URL('../out/cli/hook-client.js', import.meta.url);
const { main } =
  argv[0] === 'hook' && existsSync(client)
    ? await import(client.href).then((m) => ({ main: m.hookClient }))
    : await import(pathToFileURL(entry).href);
const code = await main(argv);
// Leave as soon as the command is done (once stdout/stderr are flushed): waiting for Node to notice that
// its idle handles are gone costs ~40 ms a call, and the Claude Code hook runs this on every tool call.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
