// The pages a crawl has fetched and not yet processed: a bounded queue with a few of them being
// processed at once. Its bound is the crawl's backpressure — no new request starts while it is
// full — so memory holds at most `maxItems` pages and `maxBytes` of their bodies, however fast the
// hosts answer.
export interface WorkQueueOptions {
  /** Tasks running at once. */
  concurrency: number;
  /** Tasks held (running and waiting) before the queue is full. */
  maxItems: number;
  /** Bytes held (the bodies of the pages) before the queue is full. */
  maxBytes: number;
}

interface Task {
  run: () => Promise<void>;
  bytes: number;
}

export class WorkQueue {
  private readonly waiting: Task[] = [];
  private running = 0;
  private held = 0;
  private heldBytes = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly options: WorkQueueOptions,
    /** Called with what a task threw (the task's own failures are its to settle). */
    private readonly onError: (err: unknown) => void,
    /** Called after each task ends: the crawl loop wakes up to start requests again. */
    private readonly onDone: () => void = () => {},
  ) {}

  /** Tasks held: running or waiting. */
  get size(): number {
    return this.held;
  }

  /** Whether a new request should wait (the queue holds its maximum of pages or bytes). */
  full(): boolean {
    return this.held >= this.options.maxItems || this.heldBytes >= this.options.maxBytes;
  }

  /** Adds a task holding `bytes`; it runs when a slot is free. */
  push(run: () => Promise<void>, bytes = 0): void {
    this.held++;
    this.heldBytes += bytes;
    this.waiting.push({ run, bytes });
    this.next();
  }

  /** Resolves once nothing is held. */
  idle(): Promise<void> {
    if (this.held === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private next(): void {
    while (this.running < this.options.concurrency && this.waiting.length > 0) {
      const task = this.waiting.shift()!;
      this.running++;
      task
        .run()
        .catch(this.onError)
        .finally(() => {
          this.running--;
          this.held--;
          this.heldBytes -= task.bytes;
          if (this.held === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
          this.next();
          this.onDone();
        });
    }
  }
}
