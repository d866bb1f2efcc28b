// The store ports, one file each, and the records they carry. Adapters live in ../local and ../aws.
export * from './records.js';
export type { CrawlStore, RunStore, FrontierStore, PageStore, HostStore } from './crawl-store.js';
export type { BlobStore } from './blob-store.js';
export type { GraphStore } from './graph-store.js';
export type { FrontierQueue } from './frontier-queue.js';
export type { WorkflowStarter, WorkflowRunner, WorkflowExecution } from './workflow-starter.js';
export type { ObjectStore } from './object-store.js';
export type { CountedRequest, RequestActivity, RunLedger } from './run-ledger.js';
export type { HostQueues, HostTurn, HostTurnRecord, PendingUrl, QueueClosing, QueuedAt } from './host-queues.js';
export type * from './search-index.js';
export * from './page-fields.js';
export * from './change-store.js';
export * from './event-sink.js';
export type * from './crawl-launcher.js';
export type * from './archived-pages.js';
