/**
 * What the hook server does between calls: the background refresh of each recently active workspace's warm
 * base (engine/warmBase.ts), and the maintenance runs its checkpoints schedule (engine/maintenance.ts: counting,
 * verifying and now and then packing objects — started at once after the answer, they ran alongside the agent's
 * next call). It runs only while no call is pending, one at a time, after the answer that
 * scheduled it is out; a call arriving meanwhile is served at once (the refresh holds no lock while it scans).
 * A workspace is looked at for ACTIVE_MS after its last checkpoint (a refresh is cheap to decline: it reads
 * one small file), so a long pause of the model within a turn does not push a full scan into its next call.
 */
import type { WarmRefreshOutcome } from '../../engine/warmBase';

const ACTIVE_MS = 2 * 60_000;
/** After the last answer, before looking: the agent's next call often follows within a few ms. */
const SETTLE_MS = 25;

interface Job {
  refresh: () => Promise<WarmRefreshOutcome | 'done'>;
  lastNoted: number;
  /** Run once, then forgotten (maintenance); else looked at again on each tick while active (refresh). */
  once?: boolean;
}

export class IdleWork {
  private readonly jobs = new Map<string, Job>();
  private running = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly idle: () => boolean,
    private readonly onOutcome: (
      key: string,
      outcome: WarmRefreshOutcome | 'done' | 'failed',
      ms: number,
    ) => void = () => {},
  ) {}

  /** A checkpoint was recorded in this workspace: refresh it when idle (the newest engine's closure wins). */
  note(key: string, refresh: () => Promise<WarmRefreshOutcome>): void {
    this.jobs.set(key, { refresh, lastNoted: Date.now() });
    this.soon();
  }

  /** Run `work` once when idle (a maintenance run a checkpoint scheduled); one pending run per key. */
  once(key: string, work: () => Promise<unknown>): void {
    if (this.jobs.has(key)) return;
    this.jobs.set(key, { refresh: () => work().then(() => 'done' as const), lastNoted: Date.now(), once: true });
    this.soon();
  }

  /** Look again shortly (after each answer, and on the server's tick). */
  soon(): void {
    if (this.timer || this.jobs.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, SETTLE_MS);
    this.timer.unref();
  }

  /** Whether a refresh is running now (tests, traces). */
  get busy(): boolean {
    return this.running;
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const [key, job] of [...this.jobs]) {
        if (!job.once && Date.now() - job.lastNoted > ACTIVE_MS) {
          this.jobs.delete(key);
          continue;
        }
        if (!this.idle()) return; // a call came in: it goes first, the next tick looks again
        if (job.once) this.jobs.delete(key);
        const t0 = performance.now();
        const outcome = await job.refresh().catch(() => 'failed' as const);
        this.onOutcome(key, outcome, performance.now() - t0);
      }
    } finally {
      this.running = false;
    }
  }
}
