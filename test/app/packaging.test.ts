/**
 * Packaging: the electron-builder configuration (package.json "build") and `npm run dist`'s refusal to start
 * when it cannot package — electron-builder missing, or no Electron binary for this platform — saying why.
 * These runs never reach the build: each has at least one missing piece.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../..');
/** Packages only the renderer uses: Vite bundles them into out/renderer, so the package leaves them out. */
const RENDERER_ONLY = ['monaco-editor', 'react', 'react-dom', 'scheduler', '@tanstack', 'zustand'];
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const build = pkg.build;
const electronVersion: string = JSON.parse(
  readFileSync(join(REPO, 'node_modules/electron/package.json'), 'utf8'),
).version;
const builderInstalled = (() => {
  try {
    createRequire(join(REPO, 'package.json')).resolve('electron-builder/package.json');
    return true;
  } catch {
    return false;
  }
})();

describe('electron-builder configuration', () => {
  it('has electron-builder installed as the devDependency that `npm run dist` runs', () => {
    expect(pkg.devDependencies['electron-builder']).toBe('^26.17.0');
    expect(builderInstalled).toBe(true);
  });

  it('names the product and builds AppImage/deb, dmg and nsis', () => {
    expect(pkg.productName).toBe('Retrace');
    expect(build.productName).toBe('Retrace');
    expect(build.appId).toMatch(/^[a-z]+(\.[a-z]+)+$/);
    expect(build.linux.target).toEqual(['AppImage', 'deb']);
    expect(build.mac.target).toEqual(['dmg']);
    expect(build.win.target).toEqual(['nsis']);
    expect(pkg.scripts.dist).toBe('node scripts/dist.mjs');
  });

  it('flips the fuses: no run-as-node, NODE_OPTIONS or --inspect; encrypted cookies; only a verified app.asar', () => {
    expect(build.asar).toBe(true);
    expect(build.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('packs the built main, preload and renderer, and not the renderer-only packages Vite already bundled', () => {
    expect(build.files).toEqual(expect.arrayContaining(['out/main/**', 'out/preload/**', 'out/renderer/**']));
    expect(pkg.main).toBe('out/main/index.js');
    for (const bundled of RENDERER_ONLY) expect(build.files, bundled).toContain(`!node_modules/${bundled}/**`);
  });

  it.skipIf(!existsSync(join(REPO, 'out/main')))('the main bundle imports none of the packages left out', () => {
    const files = readdirSync(join(REPO, 'out/main'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js'),
    );
    const imported = new Set(
      files.flatMap((f) =>
        [...readFileSync(join(REPO, 'out/main', f), 'utf8').matchAll(/\bfrom\s*["']([^"'./][^"']*)["']/g)].map(
          (m) => m[1]!.split('/')[0]!,
        ),
      ),
    );
    expect(imported).toContain('electron');
    for (const left of RENDERER_ONLY) expect(imported, left).not.toContain(left);
  });
});

describe('npm run dist', () => {
  let server: Server;
  let mirror: string;
  const temp = mkdtempSync(join(tmpdir(), 'retrace-dist-'));
  beforeAll(async () => {
    // A mirror that has no Electron binaries at all.
    server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const address = server.address();
    mirror = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  });
  afterAll(() => {
    server.close();
    rmSync(temp, { recursive: true, force: true });
  });

  function dist(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [join(REPO, 'scripts/dist.mjs')], {
        cwd: REPO,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it('stops before building when the Electron binary cannot be downloaded, and says so', async () => {
    const { code, stderr } = await dist({ ELECTRON_MIRROR: mirror, ELECTRON_CACHE: join(temp, 'empty-cache') });
    expect(code).toBe(1);
    expect(stderr).toContain('cannot package Retrace here');
    expect(stderr).toContain(
      `cannot download the Electron ${electronVersion} binary (${mirror}v${electronVersion}/electron-v${electronVersion}-${process.platform}-${process.arch}.zip): HTTP 404`,
    );
  });
});
