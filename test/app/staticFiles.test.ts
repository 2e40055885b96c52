import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findBuildOutput, findRendererDir, resolveStaticPath } from '../../src/main/serve/staticFiles';

const tmp = mkdtempSync(join(tmpdir(), 'retrace-static-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('static files of the built renderer', () => {
  it('maps URL paths inside the folder and refuses escapes and dot-files', () => {
    const root = join(tmp, 'r');
    expect(resolveStaticPath(root, '/')).toBe(join(root, 'index.html'));
    expect(resolveStaticPath(root, '/assets/a.js')).toBe(join(root, 'assets/a.js'));
    for (const bad of ['/../x', '/%2e%2e/x', '/a/%2E%2E/%2E%2E/x', '/.env', '/a\\..\\x', '/%00', '/%E0%A4%A']) {
      expect(resolveStaticPath(root, bad), bad).toBeNull();
    }
  });

  it('finds out/renderer and out/main from a bundle at any depth', () => {
    const out = join(tmp, 'pkg', 'out');
    mkdirSync(join(out, 'renderer'), { recursive: true });
    mkdirSync(join(out, 'cli', 'chunks'), { recursive: true });
    mkdirSync(join(out, 'main'), { recursive: true });
    writeFileSync(join(out, 'renderer', 'index.html'), '');
    writeFileSync(join(out, 'main', 'index.js'), '');
    const chunk = pathToFileURL(join(out, 'cli', 'chunks', 'serve-abc.js')).href;
    expect(findRendererDir(chunk, {})).toBe(join(out, 'renderer'));
    expect(findBuildOutput(chunk, join('main', 'index.js'))).toBe(join(out, 'main', 'index.js'));
    expect(findRendererDir(pathToFileURL(join(tmp, 'elsewhere', 'x.js')).href, {})).toBeNull();
  });
});
