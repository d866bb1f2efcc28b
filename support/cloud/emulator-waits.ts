// The time a handler run spent waiting on the emulators' answers. The cost meter holds each AWS
// call for its modeled in-region round trip, which stands for the service's own time; what the
// emulator then took (dynalite and s3rver are far slower than DynamoDB and S3, and answer on the
// handlers' own cores) is not time Lambda would bill.

/** The spans each handler run (by its `asFunction` number) waited on an emulator, and their length. */
export class EmulatorWaits {
  private readonly spans = new Map<number, Array<[number, number]>>();

  /** A call of handler run `invocation` waited on its emulator from `from` to `to` (performance.now(), ms). */
  add(invocation: number, from: number, to: number): void {
    const spans = this.spans.get(invocation) ?? [];
    spans.push([from, to]);
    this.spans.set(invocation, spans);
  }

  /** How long handler run `invocation` waited, in ms, its calls in parallel counted once. */
  ms(invocation: number): number {
    const spans = [...(this.spans.get(invocation) ?? [])].sort((a, b) => a[0] - b[0]);
    let total = 0;
    let end = -Infinity;
    for (const [from, to] of spans) {
      if (to <= end) continue;
      total += to - Math.max(from, end);
      end = to;
    }
    return total;
  }

  clear(): void {
    this.spans.clear();
  }
}
