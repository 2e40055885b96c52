import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../../test/helpers';
import { persistentToken } from './access';

afterAll(cleanupTempDirs);

const modeOf = (p: string): string => (statSync(p).mode & 0o777).toString(8);

describe('persistentToken', () => {
  it('keeps its token in a private data home, made private when `retrace serve` is the first to use it', () => {
    const fresh = join(tempDir(), 'data');
    const token = persistentToken(join(fresh, 'serve-token'));
    expect([modeOf(fresh), modeOf(join(fresh, 'serve-token'))]).toEqual(['700', '600']);
    expect(persistentToken(join(fresh, 'serve-token'))).toBe(token); // a restarted serve keeps its URL

    const loose = join(tempDir(), 'data');
    mkdirSync(loose);
    chmodSync(loose, 0o755);
    persistentToken(join(loose, 'serve-token'));
    expect(modeOf(loose)).toBe('700');
  });
});
