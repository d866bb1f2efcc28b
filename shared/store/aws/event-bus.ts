import { PutEventsCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { BusEvent, EventSink } from '../ports/index.js';

/** EventBridge accepts ten entries a PutEvents call, each at most 256 KB. */
const PUT_EVENTS_MAX = 10;

/** The construct's EventBridge bus: events with source `trawl`, their type as the `detail-type`. */
export class EventBridgeBus implements EventSink {
  constructor(
    private readonly client: EventBridgeClient,
    readonly busName: string,
  ) {}

  async put(events: BusEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += PUT_EVENTS_MAX) {
      const batch = events.slice(i, i + PUT_EVENTS_MAX);
      const res = await this.client.send(
        new PutEventsCommand({
          Entries: batch.map((e) => ({ EventBusName: this.busName, Source: 'trawl', DetailType: e.type, Detail: JSON.stringify(e.detail) })),
        }),
      );
      // PutEvents answers 200 with per-entry failures: an entry it did not take is an error to retry, not a success.
      if (res.FailedEntryCount) {
        const failed = (res.Entries ?? []).filter((x) => x.ErrorCode).map((x) => `${x.ErrorCode}: ${x.ErrorMessage ?? ''}`);
        throw new Error(`EventBridge took ${batch.length - res.FailedEntryCount} of ${batch.length} events on ${this.busName}: ${failed.join('; ')}`);
      }
    }
  }
}
