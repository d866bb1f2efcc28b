import type { EnrichmentRecord, EnrichStore, VectorEntry, VectorIndex } from '../ports/index.js';
import type { ModelStamp } from '../enrich/providers.js';
import { documentOf, embedPage, type EnrichDeps } from './page-vectors.js';

const PAGE = 1000;

/** How the store (the truth) and the vector index differ. */
export interface IntegrityReport {
  checkedAt: string;
  /** The embedding model search queries with. */
  configuredModel: string;
  store: { records: number; withEmbedding: number };
  index: { vectors: number };
  /** Records whose embedding the index does not hold. */
  missing: string[];
  /** Vectors of pages the store has no embedding for. */
  orphans: string[];
  /** The index holds another vector than the store recorded (hash). */
  hashMismatch: string[];
  modelMismatch: Array<{ id: string; store: string; index: string }>;
  dimensionMismatch: Array<{ id: string; store: number; index: number }>;
  /** Embeddings made with another model than the configured one: `trawl enrich --stale` redoes them. */
  otherModel: number;
  /** What a bounded check covered (absent: every record and every vector). */
  slice?: IntegritySlice;
  ok: boolean;
}

/** Where a bounded check starts: after a url id among the records, at a list token among the vectors. */
export interface IntegrityCursor {
  records: string;
  vectors?: string;
}

/** What one bounded check covered and where the next one starts. */
export interface IntegritySlice {
  /** Records after `from` through `through` (url ids), and how many vectors from the cursor's token. */
  from: string;
  through: string;
  vectors: number;
  /** Every record and every vector was covered by this check alone. */
  complete: boolean;
  next: IntegrityCursor;
}

async function* records(enrich: EnrichStore): AsyncGenerator<EnrichmentRecord> {
  let after = '';
  while (true) {
    const page = await enrich.enrichments(after, PAGE);
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1]!.urlId;
  }
}

async function* entries(vectors: VectorIndex): AsyncGenerator<VectorEntry> {
  let token: string | undefined;
  do {
    const page = await vectors.list(token, PAGE);
    yield* page.entries;
    token = page.next;
  } while (token);
}

/** Compares every store record with the index entry of the same id (counts, missing ids, orphans, model, dimension, hash). */
export async function checkIndex(enrich: EnrichStore, vectors: VectorIndex, configured: ModelStamp, now = new Date()): Promise<IntegrityReport> {
  const index = new Map<string, VectorEntry>();
  for await (const v of entries(vectors)) index.set(v.id, v);
  const report = emptyReport(configured, now);
  report.index.vectors = index.size;
  const seen = new Set<string>();
  for await (const r of records(enrich)) {
    report.store.records++;
    if (!embeddedIn(r)) continue;
    seen.add(r.urlId);
    judge(report, r, index.get(r.urlId), configured);
  }
  for (const id of index.keys()) if (!seen.has(id)) report.orphans.push(id);
  report.ok = okOf(report);
  return report;
}

/**
 * A bounded check, for an index too large to compare whole at every run's end: the next `limit`
 * records after the cursor (their vectors fetched by id) and the next `limit` vectors of the
 * index's listing from the cursor's token (their records fetched by id, for orphans). Successive
 * checks go round both; a table of at most `limit` pages is checked whole each time.
 */
export async function checkIndexSlice(
  { enrich, vectors }: { enrich: EnrichStore; vectors: VectorIndex },
  configured: ModelStamp,
  cursor: IntegrityCursor,
  limit: number,
  now = new Date(),
): Promise<IntegrityReport> {
  const records: EnrichmentRecord[] = [];
  for (let after = cursor.records; records.length < limit;) {
    const want = Math.min(PAGE, limit - records.length);
    const page = await enrich.enrichments(after, want);
    records.push(...page);
    if (page.length < want) break;
    after = page[page.length - 1]!.urlId;
  }
  const recordsDone = records.length < limit;
  const embedded = records.filter(embeddedIn);
  const held = new Map((await vectors.entriesOf(embedded.map((r) => r.urlId))).map((v) => [v.id, v]));
  const listed: VectorEntry[] = [];
  let token = cursor.vectors;
  do {
    const page = await vectors.list(token, Math.min(PAGE, limit - listed.length));
    listed.push(...page.entries);
    token = page.next;
  } while (token && listed.length < limit);
  const owners = new Map((await enrich.enrichmentsOf(listed.map((v) => v.id))).map((r) => [r.urlId, r]));
  const report = emptyReport(configured, now);
  for (const r of embedded) judge(report, r, held.get(r.urlId), configured);
  report.store.records = records.length;
  report.index.vectors = listed.length;
  report.orphans = listed.filter((v) => !embeddedIn(owners.get(v.id))).map((v) => v.id);
  report.ok = okOf(report);
  report.slice = {
    from: cursor.records,
    through: records.at(-1)?.urlId ?? cursor.records,
    vectors: listed.length,
    complete: cursor.records === '' && recordsDone && cursor.vectors === undefined && !token,
    next: { records: recordsDone ? '' : records.at(-1)!.urlId, ...(token ? { vectors: token } : {}) },
  };
  return report;
}

/** Whether a record has a vector (dimension 0: judged too thin for one, see MIN_EMBED_WORDS, and none is expected). */
function embeddedIn(r: EnrichmentRecord | undefined): boolean {
  return Boolean(r?.embedding && r.embedding.dimension > 0);
}

function emptyReport(configured: ModelStamp, now: Date): IntegrityReport {
  return {
    checkedAt: now.toISOString(),
    configuredModel: `${configured.provider}/${configured.model}`,
    store: { records: 0, withEmbedding: 0 },
    index: { vectors: 0 },
    missing: [],
    orphans: [],
    hashMismatch: [],
    modelMismatch: [],
    dimensionMismatch: [],
    otherModel: 0,
    ok: true,
  };
}

/** A record with an embedding against the index's entry of its id. */
function judge(report: IntegrityReport, r: EnrichmentRecord, v: VectorEntry | undefined, configured: ModelStamp): void {
  const e = r.embedding!;
  report.store.withEmbedding++;
  if (e.model !== configured.model || e.provider !== configured.provider) report.otherModel++;
  if (!v) report.missing.push(r.urlId);
  else if (v.model !== e.model) report.modelMismatch.push({ id: r.urlId, store: e.model, index: v.model });
  else if (v.dimension !== e.dimension) report.dimensionMismatch.push({ id: r.urlId, store: e.dimension, index: v.dimension });
  else if (v.hash !== e.hash) report.hashMismatch.push(r.urlId);
}

function okOf(r: IntegrityReport): boolean {
  return !r.missing.length && !r.orphans.length && !r.hashMismatch.length && !r.modelMismatch.length && !r.dimensionMismatch.length;
}

export interface ReconcileResult {
  /** Pages embedded again and written to both sinks. */
  reembedded: number;
  /** Orphan vectors deleted. */
  deleted: number;
  /** Pages that could not be embedded again (left in the dead-letter list). */
  failed: number;
}

/**
 * Makes the index agree with the store: orphans are deleted; missing or differing vectors are made
 * again from the page with the configured embedder, and the store's metadata updated first.
 */
export async function reconcileIndex(deps: EnrichDeps, report: IntegrityReport): Promise<ReconcileResult> {
  const result: ReconcileResult = { reembedded: 0, deleted: 0, failed: 0 };
  if (report.orphans.length) {
    await deps.vectors.delete(report.orphans);
    result.deleted = report.orphans.length;
  }
  const redo = [...report.missing, ...report.hashMismatch, ...report.modelMismatch.map((m) => m.id), ...report.dimensionMismatch.map((m) => m.id)];
  for (const id of redo) {
    const c = await deps.enrich.enrichCandidate(id);
    const old = c?.enrichment;
    if (!c || !old) {
      // The page is no longer searchable (a duplicate now, or noindex): its record goes, so nothing points at a vector.
      await deps.enrich.deleteEnrichment(id);
      await deps.vectors.delete([id]);
      result.deleted++;
      continue;
    }
    try {
      const doc = documentOf(c);
      const { vector, meta } = await embedPage(deps, doc, old.summary, old.tags);
      await deps.enrich.putEnrichment({ ...old, embedding: meta, updatedAt: deps.clock() }, doc.text);
      await deps.vectors.upsert([
        { id, vector, model: meta.model, hash: meta.hash, metadata: { host: old.host, language: old.language, published: old.published, tags: old.tags } },
      ]);
      result.reembedded++;
    } catch (err) {
      await deps.enrich.recordEnrichFailure({ urlId: id, url: c.url, stage: 'index', error: (err as Error).message, attempts: 1, failedAt: deps.clock() });
      result.failed++;
    }
  }
  return result;
}

function idList(ids: string[], max = 20): string {
  if (!ids.length) return 'none';
  return (
    ids
      .slice(0, max)
      .map((i) => `\`${i}\``)
      .join(', ') + (ids.length > max ? ` … and ${ids.length - max} more` : '')
  );
}

/** The report as Markdown, for people. */
export function integrityMarkdown(r: IntegrityReport): string {
  return [
    `# Index integrity — ${r.ok ? 'consistent' : 'differences found'}`,
    '',
    `Checked ${r.checkedAt}; queries use ${r.configuredModel}.`,
    '',
    ...(r.slice && !r.slice.complete
      ? [
          `A bounded check: the records after \`${r.slice.from || '(the first)'}\` through \`${r.slice.through}\`, and ${r.slice.vectors} vectors of the index's listing; the next run's end goes on from there.`,
          '',
        ]
      : []),
    '| | count |',
    '|---|---:|',
    `| store records | ${r.store.records} |`,
    `| store records with an embedding | ${r.store.withEmbedding} |`,
    `| vectors in the index | ${r.index.vectors} |`,
    `| missing from the index | ${r.missing.length} |`,
    `| orphans in the index | ${r.orphans.length} |`,
    `| hash mismatches | ${r.hashMismatch.length} |`,
    `| model mismatches | ${r.modelMismatch.length} |`,
    `| dimension mismatches | ${r.dimensionMismatch.length} |`,
    `| embeddings from another model | ${r.otherModel} |`,
    '',
    `Missing: ${idList(r.missing)}`,
    '',
    `Orphans: ${idList(r.orphans)}`,
    '',
    `Hash mismatches: ${idList(r.hashMismatch)}`,
    '',
    `Model mismatches: ${idList(r.modelMismatch.map((m) => `${m.id} (${m.store} vs ${m.index})`))}`,
    '',
    `Dimension mismatches: ${idList(r.dimensionMismatch.map((m) => `${m.id} (${m.store} vs ${m.index})`))}`,
    '',
    r.ok ? 'Nothing to repair.' : 'Run `trawl index --reconcile` to repair: orphans are deleted, the rest embedded again.',
    r.otherModel ? `\n${r.otherModel} embedding(s) come from another model than the configured one: \`trawl enrich --stale\` redoes them.` : '',
    '',
  ].join('\n');
}
