import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { BusEvent, EventSink } from '../../ports/index.js';
import { inBatches } from '../../util/batches.js';

/** EventBridge accepts ten entries a PutEvents call, each at most 256 KB. */
const PUT_EVENTS_MAX = 10;
/** PutEvents calls in flight at once (the account's PutEvents quota is thousands of entries a second). */
const PUT_EVENTS_CONCURRENCY = 8;
/** Calls a batch's refused entries get before the put fails. */
const PUT_EVENTS_ATTEMPTS = 4;

/** The construct's EventBridge bus: events with source `trawl`, their type as the `detail-type`. */
export class EventBridgeBus implements EventSink {
  constructor(
    private readonly client: EventBridgeClient,
    readonly busName: string,
  ) {}

  /**
   * Puts the events ten a call, several calls at once; the entries a call did not take (PutEvents
   * answers 200 with per-entry failures, throttled ones among them) are sent again after a short
   * back-off, so a retry never repeats an event that was taken. Entries still refused fail the put.
   */
  async put(events: BusEvent[]): Promise<void> {
    const batches: BusEvent[][] = [];
    for (let i = 0; i < events.length; i += PUT_EVENTS_MAX) batches.push(events.slice(i, i + PUT_EVENTS_MAX));
    await inBatches(batches, PUT_EVENTS_CONCURRENCY, (batch) => this.putBatch(batch));
  }

  private async putBatch(batch: BusEvent[]): Promise<void> {
    let left = batch;
    let failed: string[] = [];
    for (let attempt = 0; attempt < PUT_EVENTS_ATTEMPTS && left.length; attempt++) {
      if (attempt) await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
      const res = await this.client.send(
        new PutEventsCommand({
          Entries: left.map((e) => ({ EventBusName: this.busName, Source: 'trawl', DetailType: e.type, Detail: JSON.stringify(e.detail) })),
        }),
      );
      if (!res.FailedEntryCount) return;
      const entries = res.Entries ?? [];
      failed = entries.filter((x) => x.ErrorCode).map((x) => `${x.ErrorCode}: ${x.ErrorMessage ?? ''}`);
      left = left.filter((_, i) => entries[i]?.ErrorCode);
    }
    if (left.length) throw new Error(`EventBridge did not take ${left.length} of ${batch.length} events on ${this.busName}: ${failed.join('; ')}`);
  }
}
