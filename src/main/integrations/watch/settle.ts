/**
 * When file activity has settled: `poke()` on every change; `onSettle` runs once `quietMs` pass with no poke,
 * or `maxWaitMs` after the first poke of a burst when the pokes never stop (a constant trickle still gets
 * checkpoints). Never two runs at once: pokes during a run start the next burst. `onSettle` answering
 * 'retry' (the writer lock was busy) waits for the next quiet period and tries again. No timer runs while idle.
 */
export interface SettleOptions {
  quietMs: number;
  maxWaitMs: number;
  onSettle: () => Promise<'done' | 'retry'>;
  onError?: (e: unknown) => void;
}

export class Settler {
  private quiet: NodeJS.Timeout | undefined;
  private max: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private pokedWhileRunning = false;
  private stopped = false;

  constructor(private readonly opts: SettleOptions) {}

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pokedWhileRunning = true;
      return;
    }
    this.arm();
  }

  /** Cancel pending timers and wait for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clear();
    await this.running;
  }

  private arm(): void {
    clearTimeout(this.quiet);
    this.quiet = setTimeout(() => this.fire(), this.opts.quietMs);
    this.max ??= setTimeout(() => this.fire(), this.opts.maxWaitMs);
  }

  private clear(): void {
    clearTimeout(this.quiet);
    clearTimeout(this.max);
    this.quiet = this.max = undefined;
  }

  private fire(): void {
    this.clear();
    if (this.stopped || this.running) return;
    this.running = (async () => {
      let again = false;
      try {
        again = (await this.opts.onSettle()) === 'retry';
      } catch (e) {
        this.opts.onError?.(e);
      }
      this.running = null;
      if (again || this.pokedWhileRunning) {
        this.pokedWhileRunning = false;
        if (!this.stopped) this.arm();
      }
    })();
  }
}
