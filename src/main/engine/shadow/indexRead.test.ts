/**
 * The index files as indexRead.ts reads them are the index as git reads it (`ls-files --stage --debug`): split indexes
 * whose shared part is replaced, deleted from and added to (bitmaps with runs and literal words; put together here as
 * git does), versions 2 to 4, and odd
 * names. What it does not read (a damaged file, intent-to-add entries, a conflict) it refuses. And an index written
 * back by indexFile.ts is one git reads the same.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { encodeIndex, replaceIndexFile } from './indexFile';
import { parseFile, readEwah, Unexpected, type ParsedEntry } from './indexRead';

afterAll(cleanupTempDirs);

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

function repo(config: Record<string, string>): { root: string; git: (...args: string[]) => string } {
  const root = tempDir('retrace-index-');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', root, ...args], { env, maxBuffer: 1 << 28 }).toString('latin1');
  git('init', '-q');
  for (const [k, v] of Object.entries(config)) git('config', k, v);
  return { root, git };
}

/** What git reads: mode, id, path and stat data of every entry (`ls-files -s --debug`, names as bytes). */
function gitView(git: (...args: string[]) => string): string[] {
  const out: string[] = [];
  const lines = git('ls-files', '-s', '--debug', '-z').split(/\0|\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\d+) ([0-9a-f]{40}) 0\t(.*)$/s.exec(lines[i]!);
    if (!m) continue;
    const [ctime, mtime, devIno, uidGid, sizeFlags] = lines.slice(i + 1, i + 6).map((l) => l.trim());
    const size = /size: (\d+)/.exec(sizeFlags!)![1];
    out.push(
      [m[1], m[2], m[3], ctime, mtime, devIno!.replace(/\s+/g, ' '), uidGid!.replace(/\s+/g, ' '), size].join('|'),
    );
  }
  return out;
}

/**
 * The entries git reads from the index at `index`: the file's own, or for a split index the shared part's, replaced
 * and deleted as the link extension's bitmaps say, with the main file's named entries added (split-index.c).
 */
function entriesOf(index: string): ParsedEntry[] {
  const main = parseFile(readFileSync(index));
  const link = main.extensions.find((x) => x.signature === 'link');
  if (!link) return main.entries;
  const shared = parseFile(
    readFileSync(path.join(path.dirname(index), `sharedindex.${link.data.toString('hex', 0, 20)}`)),
  );
  const [deleted, next] = readEwah(link.data, 20);
  const [replaced] = readEwah(link.data, next);
  const merged: (ParsedEntry | null)[] = [...shared.entries];
  replaced.forEach((pos, i) => (merged[pos] = { ...main.entries[i]!, path: shared.entries[pos]!.path }));
  for (const pos of deleted) merged[pos] = null;
  return [...merged.filter((e): e is ParsedEntry => e !== null), ...main.entries.slice(replaced.length)].sort((a, b) =>
    Buffer.compare(a.path, b.path),
  );
}

function ourView(entries: ParsedEntry[]): string[] {
  return entries.map((e) =>
    [
      e.mode.toString(8),
      e.oid.toString('hex'),
      e.path.toString('latin1'),
      `ctime: ${e.stat.ctimeS}:${e.stat.ctimeNs}`,
      `mtime: ${e.stat.mtimeS}:${e.stat.mtimeNs}`,
      `dev: ${e.stat.dev} ino: ${e.stat.ino}`,
      `uid: ${e.stat.uid} gid: ${e.stat.gid}`,
      String(e.stat.size),
    ].join('|'),
  );
}

const NAMES = ['a', 'a b', 'a-b', 'a.b', 'a/b', 'a/c/d', 'é/ü.txt', 'z'.repeat(250), 'tab\there', 'ab', 'b/a'];

function fill(root: string, count: number, tag: string): string[] {
  const rels: string[] = [];
  for (let i = 0; i < count; i++) rels.push(`d${i % 13}/e${i % 5}/f${i}.txt`);
  for (const rel of [...rels, ...NAMES.filter((n) => !n.startsWith('a/') && n !== 'a')]) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), `${tag} ${rel}\n`);
  }
  return rels;
}

describe('parseFile and readEwah read what git reads', () => {
  it.for([
    { changed: 600, every: 7 },
    { changed: 12, every: 97 },
  ])('a split index after $changed replacements, deletions of every $every th, and additions', ({ changed, every }) => {
    const { root, git } = repo({
      'core.splitIndex': 'true',
      'index.version': '4',
      'core.untrackedCache': 'true',
      'splitIndex.maxPercentChange': '100', // the shared part stays, whatever share of it changes
    });
    const rels = fill(root, 700, 'one');
    git('add', '-A');
    git('update-index', '--split-index');
    // Dense changes make runs of set bits, sparse ones literal words; one path is replaced, then deleted.
    for (const rel of rels.slice(0, changed)) appendFileSync(path.join(root, rel), 'more\n');
    for (const rel of rels.filter((_, i) => i % every === 3)) rmSync(path.join(root, rel));
    mkdirSync(path.join(root, 'new'));
    for (let i = 0; i < 40; i++) writeFileSync(path.join(root, `new/n${i}`), String(i));
    git('add', '-A');
    git('status', '--porcelain'); // writes the untracked cache into the index
    const main = readFileSync(path.join(root, '.git/index'));
    const link = main.indexOf(Buffer.from('link')); // no name here holds the word
    expect(link).toBeGreaterThan(0);
    expect(main.readUInt32BE(link + 4)).toBeGreaterThan(20 + 2 * (12 + 8)); // an id and two bitmaps of words
    const index = path.join(root, '.git/index');
    expect(ourView(entriesOf(index))).toEqual(gitView(git));
    expect(parseFile(readFileSync(index)).extensions.map((x) => x.signature)).toEqual(['link', 'UNTR']);
  });

  it.for([2, 3, 4])('an unsplit index of version %i', (version) => {
    const { root, git } = repo({ 'index.version': String(version), 'core.splitIndex': 'false' });
    fill(root, 120, 'v');
    git('add', '-A');
    expect(ourView(entriesOf(path.join(root, '.git/index')))).toEqual(gitView(git));
  });

  it('refuses what it does not read: a damaged file, intent-to-add entries', () => {
    const { root, git } = repo({ 'core.splitIndex': 'true', 'index.version': '4' });
    fill(root, 20, 'x');
    git('add', '-A');
    const index = path.join(root, '.git/index');
    const parses = (): boolean => {
      try {
        parseFile(readFileSync(index));
        return true;
      } catch (e) {
        if (e instanceof Unexpected) return false;
        throw e;
      }
    };
    expect(parses()).toBe(true);
    const bytes = readFileSync(index);
    const damaged = Buffer.from(bytes);
    damaged[20] = damaged[20]! ^ 1;
    writeFileSync(index, damaged);
    expect(parses()).toBe(false);
    writeFileSync(index, bytes);
    writeFileSync(path.join(root, 'later.txt'), 'later\n');
    git('add', '-N', 'later.txt');
    expect(parses()).toBe(false);
    git('rm', '-q', '--cached', 'later.txt');
    expect(parses()).toBe(true);
  });
});

describe('an index written back', () => {
  it('is read by git as it was, with the untracked cache kept, and git writes on from it', () => {
    const { root, git } = repo({ 'core.splitIndex': 'true', 'index.version': '4', 'core.untrackedCache': 'true' });
    fill(root, 300, 'w');
    git('add', '-A');
    git('status', '--porcelain');
    const index = path.join(root, '.git/index');
    const before = gitView(git);
    const untracked = parseFile(readFileSync(index)).extensions.filter((x) => x.signature === 'UNTR');
    expect(untracked).toHaveLength(1);
    expect(replaceIndexFile(index, () => encodeIndex(entriesOf(index), { extensions: untracked }))).toBe(true);
    expect(readFileSync(index).includes(Buffer.from('link'))).toBe(false);
    expect(gitView(git)).toEqual(before);
    expect(git('diff', '--name-only')).toBe(''); // the files are as their entries say
    const tree = git('write-tree').trim();
    expect(git('ls-tree', '-r', '--name-only', tree).split('\n').filter(Boolean)).toHaveLength(before.length);
    appendFileSync(path.join(root, 'd0/e0/f0.txt'), 'changed\n');
    expect(git('diff', '--name-only').trim()).toBe('d0/e0/f0.txt');
  });

  it('a build that answers null leaves the index as it was and no lock behind', () => {
    const { root, git } = repo({});
    fill(root, 5, 'n');
    git('add', '-A');
    const index = path.join(root, '.git/index');
    const bytes = readFileSync(index);
    expect(replaceIndexFile(index, () => null)).toBe(false);
    expect(readFileSync(index).equals(bytes)).toBe(true);
    expect(() => readFileSync(`${index}.lock`)).toThrow();
  });
});

describe('readEwah', () => {
  it('runs of ones, literal words and their positions, as git writes them', () => {
    // One marker: a run of 2 words of ones (bits 0..127), then 1 literal word with bits 0 and 63 (128, 191).
    const words = [(1n << 33n) | (2n << 1n) | 1n, (1n << 63n) | 1n];
    const b = Buffer.alloc(8 + words.length * 8 + 4);
    b.writeUInt32BE(192, 0);
    b.writeUInt32BE(words.length, 4);
    words.forEach((w, i) => b.writeBigUInt64BE(w, 8 + i * 8));
    const [bits, end] = readEwah(b, 0);
    expect(end).toBe(b.length);
    expect(bits).toEqual([...Array.from({ length: 128 }, (_, i) => i), 128, 191]);
  });
});
