/** The two host commands as users run them: `retrace serve` and the desktop launcher (`retrace`, `retrace DIR`). */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../bin/retrace.js');
const home = mkdtempSync(join(tmpdir(), 'retrace-hosts-home-'));
const dir = mkdtempSync(join(tmpdir(), 'retrace-hosts-ws-'));
const noElectron = mkdtempSync(join(tmpdir(), 'retrace-no-electron-'));
afterAll(() => {
  for (const d of [home, dir, noElectron]) rmSync(d, { recursive: true, force: true });
});
// ELECTRON_OVERRIDE_DIST_PATH at an empty folder: "binary missing" even where Electron is installed.
const env = { ...process.env, RETRACE_HOME: home, ELECTRON_OVERRIDE_DIST_PATH: noElectron };

async function run(args: string[]) {
  try {
    const r = await promisify(execFile)(process.execPath, [BIN, ...args], { env, cwd: dir });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('desktop launcher', () => {
  it('without the Electron binary, says so in one line and suggests retrace serve', async () => {
    for (const args of [[], [dir], ['app', dir]]) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^retrace: the Electron binary is not installed .*retrace serve/);
    }
  });

  it('refuses a folder that does not exist before looking for Electron', async () => {
    const r = await run(['app', join(dir, 'missing')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^retrace: .*does not exist/);
  });
});

describe('retrace serve', () => {
  it('prints its URL, serves it, and exits cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', dir, '--no-open', '--port', '0'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((res, rej) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\/$/m.exec(out);
        if (m) res(m[0]);
      });
      child.on('exit', (c) => rej(new Error(`exited ${c}`)));
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect((await fetch(new URL('/', url))).status).toBe(403);
    const exited = new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('rejects a bad --port as a usage error', async () => {
    const r = await run(['serve', dir, '--port', 'eighty', '--no-open']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^retrace: --port/);
  });
});
