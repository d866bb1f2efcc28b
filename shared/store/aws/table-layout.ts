/**
 * The single-table layout of the cloud store: a public contract for stream consumers (see the
 * README's "DynamoDB items" section). The CDK storage construct and the test emulators build the
 * table from these names, so code, stack and tests cannot drift apart.
 */
export const KEY = { pk: 'PK', sk: 'SK' } as const;

/** Aliases by their target (`ALIAS#<urlId>`): redirects and canonicals that lead to a page, for its inlinks. */
export const INLINKS_INDEX = { name: 'inlinks', pk: 'GSI1PK', sk: 'GSI1SK' } as const;
/**
 * The frontier index, sparse: a URL item is in it while the URL waits in its host's queue
 * (`Q#<run>#<host>#<part>`, sorted by priority, then depth) and once it is fetched (`D#<run>#<shard>`:
 * the run's pages by shard, what its end ranks). Only the keys and `notBefore` are projected: a
 * queue read is a few hundred bytes, and the claim that follows reads the whole item.
 */
export const FRONTIER_INDEX = { name: 'frontier', pk: 'QPK', sk: 'QSK', projected: ['notBefore'] } as const;
/** Epoch seconds after which DynamoDB's TTL deletes an item: frontier, activity and fetch items carry it. */
export const TTL_ATTRIBUTE = 'expiresAt';
/** Days a fetch record (`FETCH#`) is kept when the deployment does not say (`fetchRetention`). */
export const DEFAULT_FETCH_RETENTION_DAYS = 400;

/** A page's enrichment record, spread over 16 partitions by the first hex digit of the url id (listing them in that order is url-id order). */
export const enrichmentKey = (urlId: string) => ({ PK: `ENRICH#${/^[0-9a-f]/.test(urlId) ? urlId[0] : '_'}`, SK: urlId });
/** A page's enrichment dead letter: one partition, read only when they are listed. */
export const deadLetterKey = (urlId: string) => ({ PK: 'ENRICH_FAILURES', SK: urlId });

/**
 * An EXTRACT item's mark that its page has an enrichment dead letter: its next enrichment deletes
 * the dead letter, and an enrichment of a page without the mark writes nothing for it.
 */
export const ENRICH_DEAD_LETTER = 'deadLettered';

/** Sort-key prefixes of a run partition's frontier items: a URL, and a batch of URLs waiting for their host's turn (after the URLs). */
export const URL_SK = 'URL#';
export const WAITING_SK = 'WAIT#';

/** Partition and sort keys of every item type. */
export const keys = {
  runCounter: () => ({ PK: 'RUNS', SK: 'COUNTER' }),
  /** A run while its status is `running` (marked `endedAt` when it ends, then expired): the running runs without reading every run. */
  runningRun: (runId: number) => ({ PK: 'RUNS', SK: `RUNNING#${pad(runId, 12)}` }),
  /** The latest run of a named crawl: `runId`. */
  crawlLatest: (crawl: string) => ({ PK: 'RUNS', SK: `CRAWL#${crawl}` }),
  run: (runId: number) => ({ PK: `RUN#${runId}`, SK: 'RUN' }),
  /**
   * One shard of the run's counters: a small item of its own, so a commit's counter moves cost one
   * write unit; the run's counters are the sum of its shards.
   */
  runCounters: (runId: number, shards: number, shard: number) => ({ PK: runPartition(runId, shards, shard), SK: 'COUNTERS' }),
  /** One minute of a run's activity (requests, 2xx answers) in one shard: the series grows by items, not by COUNTERS' size. */
  runMinute: (runId: number, minute: number, shards: number, shard: number) => ({
    PK: runPartition(runId, shards, shard),
    SK: `ACT#${String(minute).padStart(10, '0')}`,
  }),
  frontier: (runId: number, urlId: string, shards: number) => ({ PK: runPartition(runId, shards, shardOf(urlId, shards)), SK: `${URL_SK}${urlId}` }),
  runHost: (runId: number, host: string, shards: number) => ({ PK: runPartition(runId, shards, shardOf(host, shards)), SK: `HOST#${host}` }),
  /** The new URLs one page links to on one host (a part of them), waiting for the host's turn: beside the run's host record. */
  waiting: (runId: number, host: string, fromId: string, part: number, shards: number) => ({
    PK: runPartition(runId, shards, shardOf(host, shards)),
    SK: `${WAITING_SK}${host}#${fromId}#${part}`,
  }),
  trap: (runId: number, key: string, shards: number) => ({ PK: runPartition(runId, shards, shardOf(key, shards)), SK: `TRAP#${key}` }),
  /** A host whose URLs the run skipped as parked: the summary's parked hosts, read without the run's URLs. */
  runParked: (runId: number, host: string) => ({ PK: `RUN#${runId}`, SK: `PARKED#${host}` }),
  /** The selection of one seed homepage at the end of a run. */
  selection: (runId: number, homeId: string) => ({ PK: `RUN#${runId}`, SK: `SELECTION#${homeId}` }),
  /** Politeness state and the fetch claim: small, updated around every request. */
  host: (host: string) => ({ PK: `HOST#${host}`, SK: 'HOST' }),
  /** robots.txt of a host: written when it is fetched, read with the host. */
  robots: (host: string) => ({ PK: `HOST#${host}`, SK: 'ROBOTS' }),
  page: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'PAGE' }),
  extract: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'EXTRACT' }),
  alias: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'ALIAS' }),
  fetch: (urlId: string, fetchedAt: number, discriminator: string) => ({ PK: `URL#${urlId}`, SK: `FETCH#${pad(fetchedAt, 15)}#${discriminator}` }),
  /** A page snapshot's outlinks, all in one item (gzipped JSON): one write a page, not two a link. */
  links: (fromId: string, snapshot: string) => ({ PK: `URL#${fromId}`, SK: `LINKS#${snapshot}` }),
  /** The pages linking to a page, as of the last finalized run (FinalizeRun writes them). */
  inlinks: (urlId: string) => ({ PK: `URL#${urlId}`, SK: 'INLINKS' }),
  chunk: (urlId: string, seq: number) => ({ PK: `URL#${urlId}`, SK: `CHUNK#${pad(seq, 5)}` }),
  /** A page in one SimHash band (20–22 bits of the hash): the band's pages are one partition, no index needed. */
  band: (band: number, value: string, urlId: string) => ({ PK: `BAND#${band}#${value}`, SK: urlId }),
  body: (hash: string) => ({ PK: `BODY#${hash}`, SK: 'BODY' }),
  text: (hash: string) => ({ PK: `TEXT#${hash}`, SK: 'TEXT' }),
} as const;

/**
 * The partitions a host's queue is spread over in a new run (`Q#<run>#<host>#<part>`, a URL's part
 * by its id): a big host's new URLs then take a quarter of DynamoDB's 1,000 write units a second of
 * a partition each, and a queue read asks the parts at once. A run made before parts has one,
 * `Q#<run>#<host>`; the RUN item records its count (`queueParts`).
 */
export const QUEUE_PARTS = 4;

/** The frontier index's partition of a host's queue in a run, or of one of its parts. */
export function hostQueueKey(runId: number, host: string, part?: number): string {
  return part === undefined ? `Q#${runId}#${host}` : `Q#${runId}#${host}#${part}`;
}

/** Every partition of a host's queue in a run whose queues have `parts` parts. */
export function hostQueueKeys(runId: number, host: string, parts: number): string[] {
  return parts <= 1 ? [hostQueueKey(runId, host)] : Array.from({ length: parts }, (_, k) => hostQueueKey(runId, host, k));
}

/** The partition of a host's queue a URL waits in. */
export function urlQueueKey(runId: number, host: string, urlId: string, parts: number): string {
  return parts <= 1 ? hostQueueKey(runId, host) : hostQueueKey(runId, host, shardOf(urlId, parts));
}

/** The frontier index's partition of a run's fetched pages in one shard. */
export function doneShardKey(runId: number, shard: number): string {
  return `D#${runId}#${shard}`;
}

/** Priorities sort within this range (wider ones are clamped): a shipped profile's scores are a few units either side of 0. */
const PRIORITY_SPAN = 1e6;

/**
 * A queued URL's place in its host's queue: the higher priority first, then the shallower URL,
 * then the URL id (the order of `frontier/priority.ts`'s `before`), as a string DynamoDB sorts.
 */
export function queueOrder(priority: number, depth: number, urlId: string): string {
  const p = Math.min(PRIORITY_SPAN, Math.max(-PRIORITY_SPAN, Number.isFinite(priority) ? priority : 0));
  return `${pad(Math.round((PRIORITY_SPAN - p) * 10_000), 11)}#${pad(depth, 4)}#${urlId}`;
}

/**
 * Partitions a run's URLs, counters, activity, host slots and trap records are spread over
 * (`RUN#<runId>#<shard>`): each takes a share of the run's writes, so no partition or item of the
 * run meets DynamoDB's 1,000 write units a second before the run's hosts and Lambdas run out. The
 * RUN item records its run's count (`shards`); a run without it has one partition, `RUN#<runId>`.
 */
export const RUN_SHARDS = 32;
/** The partitions of a run whose page budget is over LARGE_RUN_PAGES (10⁵): its URL items and counters spread four times wider. */
export const LARGE_RUN_SHARDS = 128;
export const LARGE_RUN_PAGES = 100_000;

/** The partitions a new run is spread over, by its page budget: a partition takes 1,000 write units a second. */
export function runShardsFor(maxPages: number | undefined): number {
  return typeof maxPages === 'number' && maxPages > LARGE_RUN_PAGES ? LARGE_RUN_SHARDS : RUN_SHARDS;
}

/** The partition of one shard of a run: `RUN#<runId>` for a run of one shard, else `RUN#<runId>#<shard>`. */
export function runPartition(runId: number, shards: number, shard: number): string {
  return shards <= 1 ? `RUN#${runId}` : `RUN#${runId}#${shard}`;
}

/** The shard of a key (a URL id, a host, a trap key): FNV-1a of its characters, modulo the shards. */
export function shardOf(key: string, shards: number): number {
  if (shards <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % shards;
}

export function pad(n: number, width: number): string {
  return String(Math.max(0, Math.floor(n))).padStart(width, '0');
}

/** The table's key schema and indexes in CreateTable terms (used by the emulator setup in tests). */
export const TABLE_DEFINITION = {
  AttributeDefinitions: [KEY.pk, KEY.sk, INLINKS_INDEX.pk, INLINKS_INDEX.sk, FRONTIER_INDEX.pk, FRONTIER_INDEX.sk].map((name) => ({
    AttributeName: name,
    AttributeType: 'S' as const,
  })),
  KeySchema: [
    { AttributeName: KEY.pk, KeyType: 'HASH' as const },
    { AttributeName: KEY.sk, KeyType: 'RANGE' as const },
  ],
  GlobalSecondaryIndexes: [
    ...[INLINKS_INDEX].map((ix) => ({
      IndexName: ix.name,
      KeySchema: [
        { AttributeName: ix.pk, KeyType: 'HASH' as const },
        { AttributeName: ix.sk, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
    {
      IndexName: FRONTIER_INDEX.name,
      KeySchema: [
        { AttributeName: FRONTIER_INDEX.pk, KeyType: 'HASH' as const },
        { AttributeName: FRONTIER_INDEX.sk, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...FRONTIER_INDEX.projected] },
    },
  ],
  BillingMode: 'PAY_PER_REQUEST' as const,
};

/** S3 key layout (also public): the archive layout both runtimes share. */
export { archiveKeys as s3Keys } from '../../ports/archive-keys.js';
