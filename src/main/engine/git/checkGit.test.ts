import { describe, expect, it } from 'vitest';
import { RetraceError } from '../../../shared/errors';
import { checkGit } from './checkGit';

describe('checkGit', () => {
  it('reports the installed version', async () => {
    expect(await checkGit()).toMatch(/^\d+\.\d+/);
  });
  it('gives E_GIT_MISSING when git is not on PATH', async () => {
    const err = await checkGit({ PATH: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetraceError);
    expect((err as RetraceError).code).toBe('E_GIT_MISSING');
  });
});
