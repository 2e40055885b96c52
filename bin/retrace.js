#!/usr/bin/env node
// The `retrace` command. The real code is bundled by `npm run build:cli` (run by `npm install` via `prepare`).
// CommonJS (bin/package.json): `retrace hook …` runs on every tool call of the agent, and its small client
// then never starts Node's ESM loader (~5–10 ms); the full CLI is ESM and is imported when needed.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, see above */
const { existsSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const cli = path.join(__dirname, '../out/cli/retrace.js');
const hookClient = path.join(__dirname, '../out/cli/hook-client.cjs');
if (!existsSync(cli)) {
  process.stderr.write('retrace: the CLI is not built yet; run `npm run build:cli` in the retrace folder\n');
  process.exit(1);
}

async function run(argv) {
  // The hook asks the resident hook server and loads the full CLI only when it has to run the hook itself.
  if (argv[0] === 'hook' && existsSync(hookClient))
    return require(hookClient).hookClient(argv, { bin: __filename, cli });
  const { main } = await import(pathToFileURL(cli).href);
  return main(argv);
}

run(process.argv.slice(2)).then((code) => {
  // Leave as soon as the command is done (once stdout/stderr are flushed): waiting for Node to notice that
  // its idle handles are gone costs ~40 ms a call, and the Claude Code hook runs this on every tool call.
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
