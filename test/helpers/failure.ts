import { RetraceError } from '../../src/shared/errors';

/** The RetraceError `p` fails with (its code and message are then asserted); any other outcome fails the test. */
export async function failure(p: Promise<unknown>): Promise<RetraceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RetraceError) return e;
    throw e;
  }
  throw new Error('expected the operation to fail');
}
