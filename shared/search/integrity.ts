import type { EnrichmentRecord, EnrichStore, VectorEntry, VectorIndex } from '../store/ports/index.js';
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
  ok: boolean;
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
  const report: IntegrityReport = {
    checkedAt: now.toISOString(),
    configuredModel: `${configured.provider}/${configured.model}`,
    store: { records: 0, withEmbedding: 0 },
    index: { vectors: index.size },
    missing: [],
    orphans: [],
    hashMismatch: [],
    modelMismatch: [],
    dimensionMismatch: [],
    otherModel: 0,
    ok: true,
  };
  const seen = new Set<string>();
  for await (const r of records(enrich)) {
    report.store.records++;
    const e = r.embedding;
    // Dimension 0: judged too thin for a vector (see MIN_EMBED_WORDS), and none is expected.
    if (!e || e.dimension === 0) continue;
    report.store.withEmbedding++;
    seen.add(r.urlId);
    if (e.model !== configured.model || e.provider !== configured.provider) report.otherModel++;
    const v = index.get(r.urlId);
    if (!v) report.missing.push(r.urlId);
    else if (v.model !== e.model) report.modelMismatch.push({ id: r.urlId, store: e.model, index: v.model });
    else if (v.dimension !== e.dimension) report.dimensionMismatch.push({ id: r.urlId, store: e.dimension, index: v.dimension });
    else if (v.hash !== e.hash) report.hashMismatch.push(r.urlId);
  }
  for (const id of index.keys()) if (!seen.has(id)) report.orphans.push(id);
  report.ok =
    !report.missing.length && !report.orphans.length && !report.hashMismatch.length && !report.modelMismatch.length && !report.dimensionMismatch.length;
  return report;
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
