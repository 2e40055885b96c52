/** I3: a restore first records a safety checkpoint (never-checkpointed files included); excluded files are never touched. */
import { chmodSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, cliJson, makeWorkspace, tempHome, treeManifest, writeTree } from '../helpers';

afterAll(cleanupTempDirs);

describe('I3: a restore loses nothing', () => {
  it('a file that was never checkpointed is deleted by the restore and brought back by undo, bit for bit', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'a\n' });
    const o = { home, cwd: root };
    const c = await cliJson(['checkpoint'], o);
    writeTree(root, {
      'new/never.txt': 'never checkpointed\n',
      'new/tool.sh': { content: '#!/bin/sh\n', mode: 0o755 },
      'new/link': { symlink: '../a.txt' },
      'new/blob.bin': Buffer.from([0, 255, 0, 1]),
    });
    const edited = treeManifest(root);
    const r = await cliJson<{ changed: string[] }>(['restore', c.hash as string, '--code'], o);
    expect(r.changed.sort()).toEqual(['new/blob.bin', 'new/link', 'new/never.txt', 'new/tool.sh']);
    expect(existsSync(join(root, 'new'))).toBe(false);
    await cliJson(['undo'], o);
    expect(treeManifest(root)).toEqual(edited);
    expect(statSync(join(root, 'new/tool.sh')).mode & 0o777).toBe(0o755);
  });

  it('ignored, secret, node_modules and .retraceignore files are never changed or deleted by restore or undo', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'a.txt': 'a\n', '.gitignore': 'dist/\n', '.retraceignore': 'private/\n' });
    const o = { home, cwd: root };
    const c = await cliJson(['checkpoint'], o);
    writeTree(root, {
      'dist/out.js': 'built\n',
      'node_modules/x/i.js': 'dep\n',
      '.env': 'SECRET=1\n',
      'private/key': 'k\n',
      'a.txt': 'changed\n',
    });
    const keep = (p: string) =>
      ['dist', 'node_modules', '.env', 'private'].some((k) => p === k || p.startsWith(`${k}/`));
    const onlyExcluded = { mtimes: true, exclude: (p: string) => !keep(p) };
    const excludedBefore = treeManifest(root, onlyExcluded);
    expect(excludedBefore.size).toBe(4);
    const r = await cliJson<{ changed: string[] }>(['restore', c.hash as string, '--code'], o);
    expect(r.changed).toEqual(['a.txt']);
    expect(treeManifest(root, onlyExcluded)).toEqual(excludedBefore);
    await cliJson(['undo'], o);
    expect(treeManifest(root, onlyExcluded)).toEqual(excludedBefore);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('changed\n');
  });

  it('a restore over a symlink or executable-bit change is undone exactly', async () => {
    const home = tempHome();
    const root = makeWorkspace({ 'run.sh': { content: '#!/bin/sh\n', mode: 0o755 }, 'target.txt': 't\n' });
    const o = { home, cwd: root };
    const c = await cliJson(['checkpoint'], o);
    chmodSync(join(root, 'run.sh'), 0o644);
    writeFileSync(join(root, 'target.txt.bak'), 'b\n');
    symlinkSync('target.txt', join(root, 'alias'));
    const edited = treeManifest(root);
    await cliJson(['restore', c.hash as string, '--code'], o);
    expect(statSync(join(root, 'run.sh')).mode & 0o111).not.toBe(0);
    await cliJson(['undo'], o);
    expect(treeManifest(root)).toEqual(edited);
  });
});
