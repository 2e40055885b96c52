/**
 * What the e2e specs drive: the real `retrace` CLI (bin/retrace.js) with a temporary RETRACE_HOME, and a
 * real `retrace serve` process whose printed URL the browser opens.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';

export const REPO = resolve(import.meta.dirname, '../..');
const BIN = join(REPO, 'bin', 'retrace.js');
const run = promisify(execFile);

export interface TempWorld {
  /** The workspace folder. */
  dir: string;
  /** RETRACE_HOME for every process of this test. */
  home: string;
  /** More environment for every process (e.g. CLAUDE_CONFIG_DIR). */
  env: Record<string, string>;
  cleanup(): void;
}

export function tempWorld(): TempWorld {
  const dir = mkdtempSync(join(tmpdir(), 'retrace-e2e-ws-'));
  const home = mkdtempSync(join(tmpdir(), 'retrace-e2e-home-'));
  return {
    dir,
    home,
    env: {},
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Run `retrace ARGS --json` in the workspace; returns the parsed JSON. */
export async function cli<T = Record<string, unknown>>(world: TempWorld, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [BIN, ...args, '--cwd', world.dir, '--json'], {
    env: { ...process.env, ...world.env, RETRACE_HOME: world.home },
    cwd: world.dir,
  });
  return JSON.parse(stdout) as T;
}

/** Run a TypeScript helper with tsx (for fixtures written through the engine API). */
export async function tsx(world: TempWorld, script: string, args: string[]): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [join(REPO, 'node_modules/tsx/dist/cli.mjs'), join(REPO, script), ...args],
    {
      env: { ...process.env, RETRACE_HOME: world.home },
      cwd: REPO,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return stdout;
}

export interface Served {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Start `retrace serve [DIR] --no-open --port PORT` (0: any free port) and wait for the URL it prints. */
export function serve(
  world: TempWorld,
  opts: { dir?: string | null; cwd?: string; port?: number } = {},
): Promise<Served> {
  const dirArgs = opts.dir === null ? [] : [opts.dir ?? world.dir];
  const port = String(opts.port ?? 0);
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', ...dirArgs, '--no-open', '--port', port], {
    env: { ...process.env, ...world.env, RETRACE_HOME: world.home },
    cwd: opts.cwd ?? world.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise<Served>((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`retrace serve printed no URL in 20 s: ${err}`)), 20_000);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`retrace serve exited (${code}): ${err}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/127\.0\.0\.1:(\d+)\/\S*)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolvePromise({
        url: m[1]!,
        port: Number(m[2]),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * Wait, every animation frame, until the timeline's selected row is the bulk session's newest message (10,000):
 * the moment a window opening that session is usable. Shared by e2e/perf.spec.ts and bench/appOpenTrace.ts.
 */
export async function waitForNewestRowSelected(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document
        .querySelector('[role="list"][aria-label="Timeline"] [aria-current="true"]')
        ?.textContent?.includes('Message 10000') === true,
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );
}
