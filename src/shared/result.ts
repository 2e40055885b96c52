import { toErrorInfo, type ErrorInfo } from './errors';

/** How every answer crosses IPC and the serve socket: a value, or an error with a code. Never a thrown string. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (error: ErrorInfo): Result<never> => ({ ok: false, error });

/** Run an async function and capture what it throws as a Result. */
export async function capture<T>(fn: () => Promise<T>): Promise<Result<T>> {
  try {
    return ok(await fn());
  } catch (e) {
    return fail(toErrorInfo(e));
  }
}
