// Bundles the `retrace` CLI (engine, sessions, integrations, serve host) into one ESM file.
// esbuild keeps start-up short, which matters for the Claude Code hook (<150 ms a call).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Start clean: with code splitting, every build leaves new hashed chunks beside the old ones.
rmSync('out/cli', { recursive: true, force: true });

await build({
  entryPoints: { retrace: 'src/main/cli/index.ts' },
  outdir: 'out/cli',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outExtension: { '.js': '.js' },
  sourcemap: 'linked',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies bundled into ESM still call require(); give them one.
  banner: {
    js: "import { createRequire as __retraceCreateRequire } from 'node:module'; const require = __retraceCreateRequire(import.meta.url);",
  },
  external: ['electron'],
  logLevel: 'warning',
});
