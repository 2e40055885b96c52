/**
 * For the store's tests only: a stand-in for ../bridge whose methods each test answers itself, so the store runs
 * as it does in the window with nothing else stubbed. In a test file:
 *
 *   vi.mock('../bridge', () => import('./stubBridge'));
 *   import { stubBridge } from './stubBridge';
 *   stubBridge({ listSessions: async () => ({ ok: true, value: [] }), … });
 *
 * A method the test did not answer fails with E_INTERNAL "not stubbed: METHOD", as a missing handler would.
 */
import type { RetraceApi } from '../../../shared/contract';
import type { Result } from '../../../shared/result';

export type StubHandler = (req: Record<string, unknown>) => Promise<Result<unknown>>;

let handlers: Record<string, StubHandler> = {};

/** Answer the bridge's methods with these handlers (replacing the previous test's). */
export function stubBridge(next: Record<string, StubHandler>): void {
  handlers = next;
}

const notStubbed = (method: string) => () =>
  Promise.resolve({ ok: false, error: { code: 'E_INTERNAL', message: `not stubbed: ${method}` } });

export const api = new Proxy(
  {},
  { get: (_target, method: string) => handlers[method] ?? notStubbed(method) },
) as RetraceApi;

/** The test's bridge never drops. */
export const connection = { state: () => 'connected' as const, subscribe: () => () => undefined };
export const desktop = null;
