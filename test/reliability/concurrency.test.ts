/**
 * I6 under load: 4 writer processes × 25 checkpoints on one workspace while a reader lists, logs, diffs and
 * asks for status. Every writer call succeeds or fails with E_LOCKED (never a git error); the shadow
 * repository is fsck-clean; no message is lost or duplicated and the session chain is whole.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  errorCode,
  fsck,
  gitAt,
  gitChecksum,
  makeWorkspace,
  runCli,
  shadowDir,
  tempHome,
  type CliResult,
} from '../helpers/index';

const WRITERS = 4;
const PER_WRITER = 25;

afterAll(cleanupTempDirs);

interface LogMessage {
  id: string;
  text: string;
  hash: string | null;
}

describe('concurrent writers and readers (I6)', () => {
  it(`${WRITERS} processes × ${PER_WRITER} checkpoints while a reader lists and diffs`, async () => {
    const ws = makeWorkspace(undefined, { userGit: true });
    const home = tempHome();
    const o = { home, cwd: ws };
    const gitBefore = gitChecksum(ws);
    // A first checkpoint gives the reader something to diff from the start.
    const first = await runCli(['checkpoint', '--text', 'base', '--json'], o);
    expect(first.code, first.stderr).toBe(0);
    const base = (first.json as { hash: string; session: string }).hash;

    const writerResults: { label: string; r: CliResult }[] = [];
    let writersDone = false;
    const writer = async (w: number): Promise<void> => {
      for (let k = 0; k < PER_WRITER; k++) {
        const label = `w${w}-${String(k).padStart(2, '0')}`;
        // Each writer edits its own file between checkpoints, as agents do.
        writeFileSync(join(ws, `src/writer-${w}.ts`), `export const step = ${k};\n`);
        const r = await runCli(['checkpoint', '--text', label, '--json'], o);
        writerResults.push({ label, r });
      }
    };
    const readerResults: { what: string; r: CliResult }[] = [];
    const reader = async (): Promise<void> => {
      const reads: string[][] = [
        ['sessions', '--json'],
        ['log', '--json'],
        ['diff', base, '--json'],
        ['status', '--json'],
      ];
      let i = 0;
      while (!writersDone) {
        const args = reads[i++ % reads.length]!;
        readerResults.push({ what: args[0]!, r: await runCli(args, o) });
      }
    };
    const readerRun = reader();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    writersDone = true;
    await readerRun;

    // Writers: success or E_LOCKED after the bounded wait; never a git error or a crash.
    const bad = writerResults.filter(({ r }) => r.code !== 0 && errorCode(r) !== 'E_LOCKED');
    expect(bad.map(({ label, r }) => `${label}: ${r.code} ${r.stderr.trim()}`)).toEqual([]);
    const ok = writerResults.filter(({ r }) => r.code === 0);
    const locked = writerResults.length - ok.length;
    // E_LOCKED only after the bounded wait (10 s), never at once (e.g. from a git lock file).
    const early = writerResults.filter(({ r }) => r.code !== 0 && r.ms < 9_000);
    expect(early.map(({ label, r }) => `${label}: E_LOCKED after ${r.ms} ms: ${r.stderr.trim()}`)).toEqual([]);
    const badReads = readerResults.filter(({ r }) => r.code !== 0 && errorCode(r) !== 'E_LOCKED');
    expect(badReads.map(({ what, r }) => `${what}: ${r.code} ${r.stderr.trim()}`)).toEqual([]);

    // One session (the first checkpoint created it; all writers append to it).
    const sessions = await runCli(['sessions', '--json'], o);
    const list = sessions.json as { id: string; checkpoints: number }[];
    expect(list.length).toBe(1);

    // Every successful checkpoint is in the log exactly once, with its own hash; none that failed is.
    const log = await runCli(['log', '--json'], o);
    expect(log.code, log.stderr).toBe(0);
    const messages = (log.json as { messages: LogMessage[] }).messages;
    const texts = messages.map((m) => m.text);
    for (const { label, r } of writerResults) {
      const n = texts.filter((t) => t === label).length;
      expect(n, `${label} appears ${n} times`).toBe(r.code === 0 ? 1 : 0);
      if (r.code === 0) {
        const hash = (r.json as { hash: string }).hash;
        expect(messages.find((m) => m.text === label)?.hash).toBe(hash);
      }
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    const hashes = messages.map((m) => m.hash).filter((h): h is string => h !== null);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(hashes.length).toBe(ok.length + 1);

    // The chain is whole: each checkpoint's parent is the previous one in log order; the ref is the last.
    const gitDir = shadowDir(home, ws);
    for (let i = 1; i < hashes.length; i++) {
      const parent = gitAt(gitDir, ['rev-parse', `${hashes[i]}^`]).trim();
      expect(parent, `parent of checkpoint ${i}`).toBe(hashes[i - 1]);
    }
    const tip = gitAt(gitDir, ['rev-parse', `refs/retrace/sessions/${list[0]!.id}`]).trim();
    expect(tip).toBe(hashes.at(-1));

    const f = fsck(gitDir);
    expect(f.ok, f.output).toBe(true);
    expect(gitChecksum(ws)).toBe(gitBefore);
    console.log(
      `concurrency: ${writerResults.length} writer calls (${ok.length} ok, ${locked} E_LOCKED), ` +
        `${readerResults.length} reader calls, 0 lost, 0 duplicated`,
    );
  }, 240_000);
});
