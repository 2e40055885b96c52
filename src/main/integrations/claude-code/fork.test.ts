/** Forks of 2.1.x transcripts: parallel results come along; the same point forked twice gives one file. */
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parallelCalls } from '../../../../test/integrations/claudeShapes';
import { cleanupTempDirs, tempDir } from '../../../../test/helpers';
import { forkTranscript } from './fork';

afterAll(cleanupTempDirs);

function transcript(): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'orig.jsonl');
  writeFileSync(file, parallelCalls('/w', true).text());
  return { dir, file };
}

describe('forkTranscript', () => {
  it('a fork after a parallel response holds every sibling call and its result, and the progress line between', () => {
    const { file } = transcript();
    const fork = forkTranscript(file, { sourceId: 'a3' }, { env: { CLAUDE_CONFIG_DIR: tempDir() } });
    const uuids = readFileSync(fork.transcript, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { uuid: string }).uuid);
    expect(uuids).toEqual(['u1', 'a1', 'a2', 'r1', 'r2', 'p1', 'a3']);
  });

  it('restoring the same point twice reuses the identical fork instead of writing another', () => {
    const { dir, file } = transcript();
    const env = { CLAUDE_CONFIG_DIR: tempDir() };
    const first = forkTranscript(file, { sourceId: 'a3' }, { env });
    const second = forkTranscript(file, { sourceId: 'a3' }, { env });
    expect(second.sessionId).toBe(first.sessionId);
    expect(readdirSync(dir).filter((n) => n.endsWith('.jsonl'))).toHaveLength(2); // the original and one fork
    const other = forkTranscript(file, { sourceId: 'u1' }, { env });
    expect(other.sessionId).not.toBe(first.sessionId);
  });

  it('a fork is as private as the transcript it copies', () => {
    const { file } = transcript();
    const env = { CLAUDE_CONFIG_DIR: tempDir() };
    const modeOf = (f: string): string => (statSync(f).mode & 0o777).toString(8);
    chmodSync(file, 0o600);
    expect(modeOf(forkTranscript(file, { sourceId: 'a3' }, { env }).transcript)).toBe('600');
    chmodSync(file, 0o640);
    expect(modeOf(forkTranscript(file, { sourceId: 'u1' }, { env }).transcript)).toBe('640');
  });
});
