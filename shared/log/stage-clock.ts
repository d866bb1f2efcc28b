// `--stage-times`: where a crawl's time goes, by stage, measured on the thread that does the work
// (the wall time of synchronous code, which on its own thread is its CPU time). Each thread keeps
// its own clock and sends its figures along with its results; the crawl adds them up.

/** Milliseconds by stage. */
export type StageTimes = Record<string, number>;

export class StageClock {
  readonly ms: StageTimes = {};

  constructor(readonly enabled = false) {}

  /** Runs `work`, adding its time to `stage` when the clock is on. */
  time<T>(stage: string, work: () => T): T {
    if (!this.enabled) return work();
    const started = performance.now();
    try {
      return work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  /** Awaits `work`, adding the time until it settles (for work with no waiting in it but microtasks). */
  async timeAsync<T>(stage: string, work: () => Promise<T>): Promise<T> {
    if (!this.enabled) return work();
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(stage, performance.now() - started);
    }
  }

  add(stage: string, ms: number): void {
    if (this.enabled) this.ms[stage] = (this.ms[stage] ?? 0) + ms;
  }

  /** The figures so far, the clock starting again from zero (a thread sending them on). */
  take(): StageTimes {
    const taken = { ...this.ms };
    for (const stage of Object.keys(this.ms)) delete this.ms[stage];
    return taken;
  }

  /** Adds another thread's figures. */
  merge(times: StageTimes | undefined): void {
    for (const [stage, ms] of Object.entries(times ?? {})) this.add(stage, ms);
  }
}

/** A clock that is off: code that may be timed runs its work through this when nobody times it. */
export const NO_CLOCK = new StageClock(false);
