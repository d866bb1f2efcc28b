/** A crawl's events as the cloud tells them (EventBridge `detail-type`, source `trawl`): its life, and the changes its monitor tells. */
export const CRAWL_EVENTS = ['trawl.crawl.started', 'trawl.crawl.finished', 'trawl.crawl.failed', 'trawl.page.changed'] as const;
export type CrawlEventType = (typeof CRAWL_EVENTS)[number];

export interface BusEvent {
  type: CrawlEventType;
  detail: Record<string, unknown>;
}

/** Where the cloud's events go (the construct's EventBridge bus); at least once. */
export interface EventSink {
  put(events: BusEvent[]): Promise<void>;
}
