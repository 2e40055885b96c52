/**
 * A split index edited here (splitIndexEdit.ts, through editIndex) is the index git would have after staging the same
 * files: git reads every entry as told (`ls-files -s`), finds the folder clean, writes the same tree as a fresh index
 * of the folder, and keeps working from it. Only the main file is written: the shared part stays, linked. Entries git
 * could trust only by its racy rule are smudged — shared ones through a replacement — so a change that keeps size and
 * mtime is still seen.
 */
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, indexedSizes, tempDir } from '../../../../test/helpers';
import { GitRunner } from '../git/runner';
import { editIndex } from './indexEdit';
import { indexMode, statFields, type IndexEntry } from './indexFile';
import { readEwah } from './indexRead';
import { writeEwah } from './splitIndexEdit';

afterAll(cleanupTempDirs);

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

function setup(files: number) {
  const root = tempDir('retrace-split-edit-');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], { env, maxBuffer: 1 << 28 }).toString();
  git('init', '-q');
  for (const [k, v] of Object.entries({
    'core.splitIndex': 'true',
    'index.version': '4',
    'core.untrackedCache': 'true',
    'core.trustctime': 'false', // a change that keeps size and mtime is then seen only through a smudged size
    'splitIndex.maxPercentChange': '100', // the shared part stays, whatever share of it changes
  }))
    git('config', k, v);
  const rels: string[] = [];
  for (let i = 0; i < files; i++) rels.push(`d${i % 7}/s${i % 3}/f${i}.txt`);
  const write = (rel: string, content: string): void => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  };
  // Two minutes old: git's own writes find nothing racy, so the shared entries stay as they are (git would give a
  // racy one a smudged replacement itself).
  const old = new Date(Date.now() - 120_000);
  for (const rel of rels) {
    write(rel, `first ${rel}\n`);
    utimesSync(path.join(root, rel), old, old);
  }
  git('add', '-A');
  git('update-index', '--split-index');
  const runner = new GitRunner({ gitDir: path.join(root, '.git'), workTree: root, hooksDir: tempDir() });
  const index = path.join(root, '.git/index');
  /** What the restore would hand over for a file it just wrote: its blob (stored) and its stat data now. */
  const entryOf = (rel: string, content: string): IndexEntry => {
    write(rel, content);
    const oid = git('hash-object', '-w', rel).trim();
    const st = lstatSync(path.join(root, rel), { bigint: true });
    return { path: rel, mode: indexMode(st), oid, stat: statFields(st) };
  };
  /** The tree of a fresh index of the folder as it is: what the edited index must hold. */
  const folderTree = (): string => {
    const fresh = path.join(root, '.git', 'fresh-index');
    rmSync(fresh, { force: true });
    const e = { ...env, GIT_INDEX_FILE: fresh };
    execFileSync('git', ['-C', root, '-c', 'core.splitIndex=false', 'add', '-A'], { env: e });
    return execFileSync('git', ['-C', root, '-c', 'core.splitIndex=false', 'write-tree'], { env: e }).toString().trim();
  };
  const sizes = (): Map<string, number> => indexedSizes(git);
  const sharedParts = (): string[] => readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('sharedindex.'));
  const linkedTo = (): string => {
    const bytes = readFileSync(index);
    const at = bytes.indexOf(Buffer.from('link'));
    return at < 0 ? '' : bytes.toString('hex', at + 8, at + 28);
  };
  /** What git finds in the folder that the index does not say: changed files, then files it has no entry for. */
  const unstaged = (): string => git('diff', '--name-only') + git('ls-files', '--others', '--exclude-standard');
  return { root, git, rels, write, runner, index, entryOf, folderTree, sizes, sharedParts, linkedTo, unstaged };
}

/** The old index file made older (-180 s: every entry racy) or newer (none) than every file. */
function ageIndex(index: string, byMs: number): void {
  const t = new Date(Date.now() + byMs);
  utimesSync(index, t, t);
}

describe('editIndex on a split index', () => {
  it('replaces, removes and changes entries of both parts; git reads the folder as clean and writes its tree', () => {
    const s = setup(400);
    // The main file already holds replacements, deletions and additions made by git.
    for (const rel of s.rels.slice(0, 30)) appendFileSync(path.join(s.root, rel), 'git changed this\n');
    for (const rel of s.rels.filter((_, i) => i % 41 === 5)) rmSync(path.join(s.root, rel));
    for (let i = 0; i < 12; i++) s.write(`added/a${i}.txt`, `added ${i}\n`);
    s.git('add', '-A');
    s.git('write-tree'); // the cache-tree, which the edit must keep valid where nothing changed
    const shared = s.linkedTo();
    expect(shared).not.toBe('');
    const mainBefore = statSync(s.index).size;
    ageIndex(s.index, 60_000); // nothing racy: this test is about the entries told

    const edits = new Map<string, IndexEntry | null>([
      [s.rels[100]!, s.entryOf(s.rels[100]!, 'a plain shared entry, now replaced\n')],
      [s.rels[3]!, s.entryOf(s.rels[3]!, 'a shared entry git had replaced, replaced again\n')],
      ['added/a4.txt', s.entryOf('added/a4.txt', 'an added entry, changed\n')],
    ]);
    for (const rel of [s.rels[200]!, s.rels[7]!, 'added/a9.txt']) {
      rmSync(path.join(s.root, rel));
      edits.set(rel, null); // removed: a plain shared entry, a replaced one, an added one
    }
    expect(editIndex(s.runner, edits)).toBe(true);

    expect(s.linkedTo()).toBe(shared); // the same shared part, still linked
    expect(statSync(s.index).size).toBeLessThan(mainBefore + 1000);
    const listed = s.git('ls-files', '-s');
    for (const [rel, e] of edits) {
      if (e) expect(listed).toContain(`${(e.mode as number).toString(8)} ${e.oid as string} 0\t${rel}\n`);
      else expect(listed).not.toContain(`\t${rel}\n`);
    }
    expect(s.unstaged()).toBe('');
    expect(readFileSync(s.index).includes(Buffer.from('TREE'))).toBe(true);
    expect(s.git('write-tree').trim()).toBe(s.folderTree());
    // git writes on from it: a later change is staged and seen as usual.
    s.write(s.rels[100]!, 'after the edit\n');
    s.git('add', '-A');
    expect(s.git('write-tree').trim()).toBe(s.folderTree());
  });

  it('answers false and leaves the index as it was for a path it has no entry for, one git deleted, or a missing shared part', () => {
    const s = setup(60);
    rmSync(path.join(s.root, s.rels[10]!));
    s.git('add', '-A'); // deleted through the delete bitmap
    const before = readFileSync(s.index);
    for (const rel of ['not/there.txt', s.rels[10]!]) {
      const entry = s.entryOf(rel, 'x\n');
      expect(editIndex(s.runner, new Map([[rel, entry]]))).toBe(false);
      expect(readFileSync(s.index).equals(before)).toBe(true);
    }
    const held = s.rels[20]!;
    const entry = s.entryOf(held, 'y\n');
    for (const name of s.sharedParts()) rmSync(path.join(s.root, '.git', name));
    expect(editIndex(s.runner, new Map([[held, entry]]))).toBe(false);
    expect(readFileSync(s.index).equals(before)).toBe(true);
  });

  it('smudges the racy entries of both parts, so a change that keeps size and mtime is still seen', () => {
    const s = setup(120);
    s.write('added/late.txt', 'late\n');
    utimesSync(path.join(s.root, 'added/late.txt'), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    s.git('add', '-A');
    const edited = s.rels[50]!;
    // The shared entries git left as they are (not racy when it wrote the main file), the added one in the main file.
    expect(s.git('ls-files', '--debug').match(/size: 0/g) ?? []).toHaveLength(0);
    ageIndex(s.index, -180_000); // every entry racy against the old main file
    expect(editIndex(s.runner, new Map([[edited, s.entryOf(edited, 'edited now\n')]]))).toBe(true);
    const sizes = s.sizes();
    expect(sizes.get(edited)).toBe('edited now\n'.length);
    for (const [rel, n] of sizes) if (rel !== edited) expect(n, rel).toBe(0);
    // A change git could otherwise not see: same size, mtime put back (ctime not trusted here). The others are
    // compared by content too, and are as they were. (Checked once: git's diff refreshes the index it read.)
    for (const rel of [s.rels[0]!, 'added/late.txt']) {
      const abs = path.join(s.root, rel);
      const st = statSync(abs);
      writeFileSync(abs, readFileSync(abs, 'utf8').replace(/^./, '#'));
      utimesSync(abs, st.atime, st.mtime);
    }
    expect(s.git('diff', '--name-only').trim().split('\n').sort()).toEqual(['added/late.txt', s.rels[0]!].sort());
  });

  it('smudges nothing when the old main file is newer than every entry', () => {
    const s = setup(80);
    ageIndex(s.index, 60_000);
    const edited = s.rels[5]!;
    expect(editIndex(s.runner, new Map([[edited, s.entryOf(edited, 'new\n')]]))).toBe(true);
    expect([...s.sizes().values()].every((n) => n > 0)).toBe(true);
  });

  it('keeps to git after random rounds of its own staging and of edits here', () => {
    const s = setup(300);
    let seed = 7;
    const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const present = new Set(s.rels);
    for (let round = 0; round < 12; round++) {
      // git stages some changes: modified, deleted, new
      for (let k = 0; k < 15; k++) {
        const rel = s.rels[rand(s.rels.length)]!;
        if (rand(4) === 0) {
          rmSync(path.join(s.root, rel), { force: true });
          present.delete(rel);
        } else {
          s.write(rel, `round ${round} ${k}\n`);
          present.add(rel);
        }
      }
      s.git('add', '-A');
      if (rand(2) === 0) s.git('write-tree'); // with a cache-tree or without
      ageIndex(s.index, rand(2) === 0 ? 60_000 : -180_000);
      // edits here of paths the index holds
      const edits = new Map<string, IndexEntry | null>();
      const held = [...present].sort();
      for (let k = 0; k < 10; k++) {
        const rel = held[rand(held.length)]!;
        if (edits.has(rel)) continue;
        if (rand(3) === 0) {
          rmSync(path.join(s.root, rel));
          present.delete(rel);
          edits.set(rel, null);
        } else edits.set(rel, s.entryOf(rel, `edited ${round} ${k}\n`));
      }
      expect(editIndex(s.runner, edits), `round ${round}`).toBe(true);
      expect(s.unstaged(), `round ${round}`).toBe('');
      expect(s.git('write-tree').trim(), `round ${round}`).toBe(s.folderTree());
    }
    expect(s.sharedParts().length).toBeGreaterThan(0);
  });
});

describe('writeEwah', () => {
  it.for([[], [0], [63], [64], [5, 70, 700, 701, 4095]])('writes bitmaps that readEwah reads back: %j', (bits) => {
    const [read, end] = readEwah(writeEwah(bits), 0);
    expect(read).toEqual(bits);
    expect(end).toBe(writeEwah(bits).length);
  });
});
