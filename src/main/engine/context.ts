/**
 * What every piece of the engine works with for one workspace: its identity and data folder, the session logs,
 * the journal, the ledger, the recovery log and the shadow repository. The facade (workspaceEngine.ts) is one;
 * the use cases in record.ts, read/, restore/ and recovery/ take it as their first argument, so each stays a
 * plain function that a test can call with a real workspace.
 */
import type { Journal, RecoveryLog } from './journal';
import type { Ledger } from './ledger';
import type { MessageEvent, RewindEvent, UnrewindEvent } from './sessions/events';
import type { SessionStore } from './sessions/store';
import type { ShadowRepo } from './shadow';
import type { WorkspaceRef } from './workspace';

export interface WorkspaceContext {
  readonly ws: WorkspaceRef;
  readonly sessions: SessionStore;
  readonly journal: Journal;
  readonly ledger: Ledger;
  readonly recoveryLog: RecoveryLog;
  /** The shadow repository, opened (and created) on first use. */
  shadow(): Promise<ShadowRepo>;
  /** Append to a session's log, noting in the recovery log a torn last line the append had to skip. */
  appendEvents(session: string, events: (MessageEvent | RewindEvent | UnrewindEvent)[]): void;
}
