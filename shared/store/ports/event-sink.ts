/** A crawl's lifecycle events as the cloud tells them (EventBridge `detail-type`, source `trawl`). */
export const CRAWL_EVENTS = ['trawl.crawl.started', 'trawl.crawl.finished', 'trawl.crawl.failed'] as const;
export type CrawlEventType = (typeof CRAWL_EVENTS)[number];

export interface BusEvent {
  type: CrawlEventType;
  detail: Record<string, unknown>;
}

/** Where the cloud's events go (the construct's EventBridge bus); at least once. */
export interface EventSink {
  put(events: BusEvent[]): Promise<void>;
}
