import { EnrichStepError, ModelThrottledError } from '../../errors.js';
export { ModelThrottledError } from '../../errors.js';
import { checkIndexSlice, integrityMarkdown, type IntegrityCursor } from '../../search/integrity.js';
import { archiveKeys } from '../../ports/archive-keys.js';
import type { EnrichStore, ObjectStore, TextIndexUpdate } from '../../ports/index.js';
import { ProviderError } from '../../enrich/provider-error.js';
import { deadLetter, enrichWork, indexPage, summarizePage, type EnrichDeps, type EnrichWork, type Summarized } from '../stages/enrich-stage.js';
import type { ExtractResult, PageWorkflowInput } from './page-workflow.js';
import type { Providers } from '../../enrich/provider-factory.js';

/** The providers of a run that has an extract schema of its own; undefined for one that has none. */
export type RunSpecs = (runId: number) => Promise<Providers | undefined>;

/** How many times Step Functions retries a throttled Summarize or Index step (the construct's Retry uses it too). */
export const THROTTLE_RETRIES = 3;

/** The event of the Summarize and Index steps: the workflow's state and which retry of the step this is. */
export interface EnrichStepEvent {
  task: PageWorkflowInput & { results?: { Extract?: ExtractResult; Summarize?: SummarizeResult } };
  /** `$$.State.RetryCount`: 0 on the first attempt. */
  retry: number;
}

export type SummarizeResult =
  | { urlId: string; status: 'summarized'; textHash: string; work: EnrichWork; summarized: Summarized }
  | { urlId: string; status: 'unchanged' | 'skipped' | 'failed'; reason: string };

export interface IndexResult {
  urlId: string;
  status: 'indexed' | 'unchanged' | 'skipped' | 'failed';
  reason?: string;
  /** Whether a new vector went to the vector index. */
  embedded?: boolean;
}

/**
 * A step's failure: throttling with retries left goes back to Step Functions; anything else is a
 * dead letter (the page stays crawled; `trawl enrich` or the next run tries it again).
 */
async function failed(deps: EnrichDeps, event: EnrichStepEvent, url: string, err: unknown): Promise<{ status: 'failed'; reason: string }> {
  const cause = err instanceof EnrichStepError ? err.error : err;
  if (cause instanceof ProviderError && cause.retryable && event.retry < THROTTLE_RETRIES) throw new ModelThrottledError(cause.message);
  const failure = await deadLetter(deps, { urlId: event.task.row.urlId, url }, err);
  return { status: 'failed', reason: `${failure.stage}: ${failure.error}` };
}

/** The page workflow's Summarize step: summary and tags of a page Extract stored, unless its text and models are unchanged. */
export async function summarizeStep(deps: EnrichDeps, event: EnrichStepEvent, runSpec?: RunSpecs): Promise<SummarizeResult> {
  const urlId = event.task.row.urlId;
  const extract = event.task.results?.Extract;
  if (extract?.state !== 'done') return { urlId, status: 'skipped', reason: `not extracted (${extract?.state ?? 'no Extract result'})` };
  const c = await deps.enrich.enrichCandidate(urlId);
  if (!c) return { urlId, status: 'skipped', reason: 'not searchable (noindex, duplicate or no text)' };
  // A run's own extract schema (its crawl's or request's settings) over the deployment's.
  try {
    const own = await runSpec?.(event.task.runId);
    if (own) deps = { ...deps, providers: own };
  } catch (err) {
    return { urlId, ...(await failed(deps, event, c.url, err)) };
  }
  const work = enrichWork(c, deps.providers, 'new');
  if (!work) return { urlId, status: 'unchanged', reason: 'same text, same models' };
  try {
    return { urlId, status: 'summarized', textHash: c.textHash, work, summarized: await summarizePage(deps, c, work) };
  } catch (err) {
    return { urlId, ...(await failed(deps, event, c.url, err)) };
  }
}

/** The page workflow's Index step: the embedding, the store record, then the vector, for what Summarize made. */
export async function indexStep(deps: EnrichDeps, event: EnrichStepEvent): Promise<IndexResult> {
  const urlId = event.task.row.urlId;
  const s = event.task.results?.Summarize;
  if (s?.status !== 'summarized') return { urlId, status: s?.status === 'unchanged' ? 'unchanged' : 'skipped', reason: s?.reason ?? 'no Summarize result' };
  const c = await deps.enrich.enrichCandidate(urlId);
  if (!c) return { urlId, status: 'skipped', reason: 'no longer searchable' };
  // A newer fetch changed the text since Summarize read it: that fetch's own workflow indexes it.
  if (c.textHash !== s.textHash) return { urlId, status: 'skipped', reason: 'the text changed since Summarize' };
  try {
    const record = await indexPage(deps, c, s.work, s.summarized);
    return { urlId: record.urlId, status: 'indexed', embedded: s.work.embedding || !c.enrichment?.embedding };
  } catch (err) {
    return { urlId, ...(await failed(deps, event, c.url, err)) };
  }
}

/**
 * Progress's question while a run goes on: has the full-text log passed `bound` changes since the
 * last fold? Each query reads them all; the run loop then folds them in (RebuildText).
 */
export async function textRebuildDue(enrich: { textLogBacklog(limit: number): Promise<number> }, bound: number): Promise<{ due: boolean; backlog: number }> {
  const backlog = await enrich.textLogBacklog(bound);
  return { due: backlog >= bound, backlog };
}

/** The run loop's RebuildText: what changed folded into the full-text index while the run goes on (FinalizeRun folds the rest). */
export async function rebuildRunText(enrich: EnrichStore): Promise<TextIndexUpdate | undefined> {
  return enrich.indexTextChanges?.();
}

/** Records and vectors one run's end compares at most: past that, successive runs go round the index. */
export const INTEGRITY_SLICE = 20_000;
/** The report that says where the next run's end's check starts (`reports/index-check-cursor.json`). */
const INTEGRITY_CURSOR = 'index-check-cursor';

/**
 * The end of a run's Summarize/Index side (FinalizeRun): the text changes folded into the full-text
 * index where the store keeps it in segments, then a bounded integrity check of store against
 * vector index (from where the last run's end left off), as JSON and Markdown reports.
 */
export async function finalizeSearch(
  deps: EnrichDeps,
  objects: ObjectStore,
  runId: number,
  { checkLimit = INTEGRITY_SLICE, finished = false }: { checkLimit?: number; finished?: boolean } = {},
): Promise<{ textIndex?: TextIndexUpdate; report: string; consistent: boolean }> {
  // A run that finished is folded whole (its last pages waited for); a stopped or failed one now.
  const textIndex = await deps.enrich.indexTextChanges?.({ settle: finished });
  const saved = await objects.get(archiveKeys.report(INTEGRITY_CURSOR));
  const cursor = saved ? (JSON.parse(saved.toString()) as IntegrityCursor) : { records: '' };
  const check = await checkIndexSlice(deps, deps.providers.embedder.stamp, cursor, checkLimit, new Date(deps.clock()));
  await objects.putReport(INTEGRITY_CURSOR, check.slice!.next);
  const report = await objects.putReport(`run-${runId}-index-check`, check);
  await objects.putMarkdownReport(`run-${runId}-index-check`, integrityMarkdown(check));
  return { textIndex, report, consistent: check.ok };
}
