/**
 * The key layout of stored objects (public: the README's S3 contract). The S3 adapter uses it as
 * object keys, the file adapter as paths under its root, so both runtimes lay archives out alike.
 */
export const archiveKeys = {
  raw: (hash: string) => `raw/${hash.slice(0, 2)}/${hash}`,
  warc: (runId: number, name: string) => `warc/run-${runId}/${name}`,
  /** Every run's WARC files: the prefix of their keys. */
  warcPrefix: () => 'warc/',
  /** A run's WARC files: the prefix of their keys. */
  warcRun: (runId: number) => `warc/run-${runId}/`,
  /** A run's archive as one WACZ package (the cloud's FinalizeRun writes it). */
  wacz: (runId: number) => `wacz/run-${runId}.wacz`,
  /** A run's archive in parts (a run ranked shard by shard): the collection replay tools open as one archive. */
  waczCollection: (runId: number) => `wacz/run-${runId}.json`,
  /** A run's captures as a Parquet index (Hive-style `run=` partition, for Athena). */
  captures: (runId: number) => `captures/run=${runId}/captures.parquet`,
  /** What a run's end hands between its steps (the ranking's phases); the bucket's lifecycle expires it. */
  finalizeScratch: (runId: number) => `finalize/run-${runId}/`,
  extracted: (urlId: string, snapshot: string) => `extracted/${urlId}/${snapshot}.json`,
  report: (name: string) => `reports/${name}.json`,
  markdownReport: (name: string) => `reports/${name}.md`,
  /**
   * The cloud's full-text index: a segment's pages, tombstones and term shards (its manifest is a
   * DynamoDB item). `search/text/current.json` names the one generation an index had before it was
   * kept in segments: still read, as the oldest segment, until a merge folds it in.
   */
  textIndexManifest: () => 'search/text/current.json',
  /** The prefix of every object of the full-text index. */
  textIndex: () => 'search/text/',
  /** A segment's page table whole: the layout of segments written before rows came in chunks. */
  textIndexDocs: (segment: string) => `search/text/${segment}/docs.json`,
  /** Rows `chunk × ROWS_PER_CHUNK` on of a segment's page table. */
  textIndexRows: (segment: string, chunk: number) => `search/text/${segment}/rows-${String(chunk).padStart(5, '0')}.json`,
  /** A segment's url ids, sorted, with each one's row and weighted length: what a fold looks up to mark older entries dead. */
  textIndexIds: (segment: string) => `search/text/${segment}/ids.bin`,
  /** The weighted length of each of a segment's rows (u32 each, in row order). */
  textIndexLengths: (segment: string) => `search/text/${segment}/lengths.bin`,
  /** A segment's filter fields by row (host, language, published, tags): what a filtered query tests. */
  textIndexFields: (segment: string) => `search/text/${segment}/fields.bin`,
  /** A segment's dead rows, one bit a row: a version per fold that marked rows dead. */
  textIndexDead: (segment: string, version: string) => `search/text/${segment}/dead-${version}.bin`,
  textIndexTombstones: (segment: string) => `search/text/${segment}/tombstones.json`,
  textIndexShard: (segment: string, shard: number) => `search/text/${segment}/terms-${String(shard).padStart(3, '0')}.json`,
} as const;
