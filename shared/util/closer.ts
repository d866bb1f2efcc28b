/**
 * Closers of resources, run in reverse order of opening; every one runs even when another throws,
 * and the failures come back together. Register each resource as soon as it is open, so that a
 * failure while opening the next still closes it (crawlee registers cleanups the same way).
 *
 * @example
 * const closers = new Closers();
 * try {
 *   const store = open(dir);
 *   closers.add(() => store.close());
 *   …
 * } finally {
 *   await closers.close();
 * }
 */
export class Closers {
  private readonly stack: Array<() => unknown> = [];

  /** Registers a closer, to run when `close()` is called. */
  add(close: () => unknown): void {
    this.stack.push(close);
  }

  /** Runs every closer, last added first; throws the one failure, or an AggregateError of several. */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    while (this.stack.length > 0) {
      const close = this.stack.pop()!;
      try {
        await close();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} resources failed to close`);
  }
}
