// The end of a crawl run with --select (or "select" in crawls.json): each seed homepage's selection
// from what the crawl stored — its links with anchor text and section, and the heads (title,
// description) of the pages the crawl fetched, so no request is made — written to the store and
// as reports/selection-<run>.json.
import type { CrawlScoring } from '../../scoring/crawl-scoring.js';
import { selectWithPreviews, type Candidate } from '../../scoring/select.js';
import type { CrawlStore, GraphStore, ObjectStore, SelectionRecord } from '../../ports/index.js';
import { canonicalize, urlId } from '../../url/canonical.js';

/** Heads looked up per homepage, as the homepage pass previews at most. */
export const SELECTION_PREVIEWS = 30;

export interface SelectDeps {
  store: Pick<CrawlStore, 'outlinks' | 'getExtract' | 'getPage'>;
  graph: Pick<GraphStore, 'saveSelections'>;
  objects: Pick<ObjectStore, 'putReport'>;
  clock?: () => number;
}

/** One homepage's selection from the stored graph. */
export async function storedSelection(
  deps: Pick<SelectDeps, 'store'>,
  runId: number,
  seed: string,
  { scoring, cap, at }: { scoring: CrawlScoring; cap: number; at: number },
): Promise<SelectionRecord> {
  const home = canonicalize(seed) ?? seed;
  const host = new URL(home).host;
  const edges = await deps.store.outlinks(urlId(home));
  const candidates: Candidate[] = edges.map((e) => ({ url: e.toUrl, anchor: e.anchor, section: e.section, sameHost: new URL(e.toUrl).host === host }));
  let previews = 0;
  const profile = { ...scoring.profile, cap };
  const head = async (url: string) => {
    const id = urlId(url);
    const x = await deps.store.getExtract(id);
    const title = x?.title ?? (await deps.store.getPage(id))?.title;
    if (!title && !x?.description) return undefined;
    previews++;
    return { title, description: x?.description };
  };
  const selection = await selectWithPreviews(home, candidates, { profile, query: scoring.query, previews: SELECTION_PREVIEWS, head });
  return {
    runId,
    home,
    profile: profile.name,
    query: scoring.query,
    cap,
    selected: selection.selected.map((s) => ({
      url: s.url,
      bucket: s.bucket,
      total: s.total,
      contextual: s.contextual,
      intrinsic: s.intrinsic,
      boost: s.boost,
      ...(s.reason ? { reason: s.reason } : {}),
      ...(s.anchor ? { anchor: s.anchor } : {}),
    })),
    counts: selection.counts,
    previews,
    at,
  };
}

/** Every seed's selection, stored and written as the report `selection-<run>` (reports/selection-<run>.json). */
export async function selectStage(
  deps: SelectDeps,
  runId: number,
  seeds: string[],
  scoring: CrawlScoring,
  cap: number,
): Promise<{ selections: SelectionRecord[]; report: string }> {
  const at = (deps.clock ?? Date.now)();
  const selections: SelectionRecord[] = [];
  for (const seed of [...new Set(seeds)]) selections.push(await storedSelection(deps, runId, seed, { scoring, cap, at }));
  await deps.graph.saveSelections(selections);
  const report = await deps.objects.putReport(`selection-${runId}`, { runId, profile: scoring.profile.name, query: scoring.query, cap, selections });
  return { selections, report };
}
