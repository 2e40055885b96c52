#!/usr/bin/env node
/**
 * `npm run dist`: build the desktop app and package it with electron-builder (config: package.json "build").
 * Targets, each built on its own OS: Linux AppImage + deb, macOS dmg, Windows nsis.
 *
 * The Electron fuses flipped at package time (package.json build.electronFuses), and why:
 * - runAsNode off: the app never runs itself as Node (the CLI is plain Node), so ELECTRON_RUN_AS_NODE
 *   must not turn the signed binary into a general-purpose Node.
 * - enableNodeOptionsEnvironmentVariable off, enableNodeCliInspectArguments off: NODE_OPTIONS and
 *   --inspect cannot inject code into, or attach a debugger to, the shipped app.
 * - enableCookieEncryption on: Chromium's cookie store encrypted with the OS keychain.
 * - enableEmbeddedAsarIntegrityValidation on, onlyLoadAppFromAsar on: the app loads only from its own
 *   app.asar, and (macOS, Windows) only if the archive matches the hash embedded at build time.
 * - grantFileProtocolExtraPrivileges off: the renderer comes from the app's own scheme, never file://.
 *
 * Before building, it checks what packaging needs and stops, saying why, when something is missing:
 * electron-builder itself (a devDependency, so absent after `npm ci --omit=dev`), and the Electron binary for this platform, which
 * electron-builder downloads (from ELECTRON_MIRROR or GitHub) unless it is already cached. Exit code 1
 * then, with each reason on its own line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(REPO, 'package.json'));
const BUILDER_VERSION = '^26.17.0';

function electronVersion() {
  return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
}

function builderInstalled() {
  try {
    require.resolve('electron-builder/package.json');
    return true;
  } catch {
    return false;
  }
}

/** The folders @electron/get caches downloads in (ELECTRON_CACHE overrides). */
function electronCacheDirs() {
  if (process.env.ELECTRON_CACHE) return [process.env.ELECTRON_CACHE];
  if (process.platform === 'darwin') return [join(homedir(), 'Library/Caches/electron')];
  if (process.platform === 'win32')
    return [join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData/Local'), 'electron/Cache')];
  return [join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'electron')];
}

function cachedZip(zipName) {
  for (const dir of electronCacheDirs()) {
    if (!existsSync(dir)) continue;
    if (existsSync(join(dir, zipName))) return join(dir, zipName);
    for (const sub of readdirSync(dir)) if (existsSync(join(dir, sub, zipName))) return join(dir, sub, zipName);
  }
  return null;
}

/** null when the Electron zip for this platform is cached or downloadable; else why not. */
async function electronBinaryProblem(version) {
  const zipName = `electron-v${version}-${process.platform}-${process.arch}.zip`;
  if (cachedZip(zipName)) return null;
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  const url = `${mirror.endsWith('/') ? mirror : `${mirror}/`}v${version}/${zipName}`;
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(10_000) });
    if (res.ok) return null;
    return `cannot download the Electron ${version} binary (${url}): HTTP ${res.status}`;
  } catch (e) {
    const cause = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
    return `cannot download the Electron ${version} binary (${url}): ${cause}`;
  }
}

function run(command, args) {
  const r = spawnSync(command, args, { cwd: REPO, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const version = electronVersion();
const problems = [];
if (!builderInstalled())
  problems.push(
    `electron-builder is not installed: add it as a devDependency ("electron-builder": "${BUILDER_VERSION}"), then run npm run dist again`,
  );
const binary = await electronBinaryProblem(version);
if (binary)
  problems.push(
    `${binary}. Packaging needs that binary; on a machine that cannot download it, put the zip in the Electron cache or set ELECTRON_MIRROR`,
  );
if (problems.length) {
  console.error('npm run dist: cannot package Retrace here:');
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}

run(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build']);
run('npx', ['--no-install', 'electron-builder', '--publish', 'never', ...process.argv.slice(2)]);
