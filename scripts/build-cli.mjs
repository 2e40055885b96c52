// Bundles the `retrace` CLI (engine, sessions, integrations, serve host) into one ESM file, plus the hook's
// tiny client. esbuild keeps start-up short, which matters for the Claude Code hook (<150 ms a call).
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// Build into a fresh folder and swap it in at the end: with code splitting every build makes new hashed
// chunks (so the old folder cannot be reused), and a CLI run or test started meanwhile must never find
// out/cli half-emptied.
const OUT = `out/cli.build-${process.pid}`;
rmSync(OUT, { recursive: true, force: true });

// One id for both bundles of this build: a hook server of an older build declines and exits.
const buildId = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const define = { __RETRACE_BUILD_ID__: JSON.stringify(buildId), __RETRACE_VERSION__: JSON.stringify(version) };

await build({
  entryPoints: { retrace: 'src/main/cli/index.ts' },
  outdir: OUT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outExtension: { '.js': '.js' },
  sourcemap: 'linked',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  define,
  // CommonJS dependencies bundled into ESM still call require(); give them one.
  banner: {
    js: "import { createRequire as __retraceCreateRequire } from 'node:module'; const require = __retraceCreateRequire(import.meta.url);",
  },
  // @parcel/watcher loads its native binding by a computed require: it stays in node_modules.
  external: ['electron', '@parcel/watcher'],
  logLevel: 'warning',
});

// The hook client (bin/retrace.js runs it for `retrace hook …`): one CommonJS file, node: built-ins only, so
// a call answered by the hook server loads next to nothing (not even the ESM loader: ~5–10 ms). It imports
// the full CLI only to fall back.
const client = await build({
  entryPoints: { 'hook-client': 'src/main/cli/hookServer/client.ts' },
  outdir: OUT,
  outExtension: { '.js': '.cjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  define,
  metafile: true,
  logLevel: 'warning',
});
const heavy = Object.keys(client.metafile.inputs).filter((f) => f.includes('node_modules'));
if (heavy.length > 0) throw new Error(`the hook client must load only node: built-ins, not ${heavy.join(', ')}`);
writeFileSync(`${OUT}/build-id`, buildId + '\n');
const old = `out/cli.old-${process.pid}`;
try {
  renameSync('out/cli', old);
} catch (e) {
  if (e.code !== 'ENOENT') throw e;
}
renameSync(OUT, 'out/cli');
rmSync(old, { recursive: true, force: true });
