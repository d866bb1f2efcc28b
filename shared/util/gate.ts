/**
 * At most `size` holders at once; the others wait in arrival order, and a slot given up goes
 * straight to the first of them (no newcomer takes it in between).
 */
export class Gate {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** Slots held now. */
  get holders(): number {
    return this.held;
  }

  /** Resolves once a slot is this caller's, with the function that gives it up (calls after the first do nothing). */
  async acquire(): Promise<() => void> {
    if (this.held < this.size) this.held++;
    else await new Promise<void>((handOver) => this.waiting.push(handOver));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held--;
    };
  }

  /** Runs `task` in a slot. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await task();
    } finally {
      release();
    }
  }
}
