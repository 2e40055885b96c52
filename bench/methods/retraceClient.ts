/**
 * Retrace driven the way the product drives it: checkpoints through the workspace coordinator (the path the
 * CLI and hooks take), and the UI-facing reads and restores through the service the app calls
 * (createService + dispatch, request validation included). Shared by the in-process runner (timed runs) and
 * bench/probe.ts (the peak-RSS probe, its own process).
 */
import { createService, type RetraceService } from '../../src/main/service';
import { WorkspaceEngine } from '../../src/main/engine/workspaceEngine';
import { resolveWorkspace, type WorkspaceRef } from '../../src/main/engine/workspace';
import type { Result } from '../../src/shared/result';

export interface RetraceClientOptions {
  root: string;
  dataHome: string;
}

/** The app's timeline page size (src/renderer/src/store PAGE_SIZE). */
export const TIMELINE_PAGE = 500;

function value<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`retrace: ${r.error.code} ${r.error.message}`);
  return r.value;
}

export class RetraceClient {
  private constructor(
    readonly ws: WorkspaceRef,
    readonly engine: WorkspaceEngine,
    readonly service: RetraceService,
  ) {}

  static async open(opts: RetraceClientOptions): Promise<RetraceClient> {
    const ws = await resolveWorkspace(opts.root, { dataHome: opts.dataHome });
    const service = createService({ host: 'serve', dataHome: opts.dataHome, watch: false });
    value(await service.dispatch('openWorkspace', { path: opts.root }));
    return new RetraceClient(ws, new WorkspaceEngine(ws), service);
  }

  async checkpoint(hintPaths: string[] | null, session = 'bench'): Promise<string> {
    const r = await this.engine.checkpoint({ session, ...(hintPaths ? { hintPaths } : {}) });
    if (!r.hash) throw new Error('retrace: checkpoint without a hash');
    return r.hash;
  }

  async diffSummary(from: string, to: string): Promise<number> {
    return value(await this.service.dispatch('diffSummary', { workspace: this.ws.id, from, to })).files.length;
  }

  async fileContents(from: string, to: string, rel: string): Promise<void> {
    value(await this.service.dispatch('fileContents', { workspace: this.ws.id, from, to, path: rel }));
  }

  async restore(target: string): Promise<void> {
    value(await this.service.dispatch('restore', { workspace: this.ws.id, target, mode: 'code' }));
  }

  async undo(): Promise<void> {
    value(await this.service.dispatch('undo', { workspace: this.ws.id }));
  }

  /** One page of a session's timeline, as the app's first request asks for it (offset 0, PAGE_SIZE). */
  async timelinePage(session: string): Promise<number> {
    const page = value(
      await this.service.dispatch('timeline', { workspace: this.ws.id, session, offset: 0, limit: TIMELINE_PAGE }),
    );
    return page.total;
  }

  async storeBytes(): Promise<number> {
    return value(await this.service.dispatch('status', { workspace: this.ws.id })).storageBytes;
  }

  async close(): Promise<void> {
    await this.service.close();
  }
}
