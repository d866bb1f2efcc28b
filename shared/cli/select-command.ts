import { UsageError } from '../errors.js';
import type { CrawlSettings } from '../config/settings.js';
import { select, type HomepageSelection } from '../library/select.js';
import { jsonLine } from './render.js';
import type { SelectionRecord } from '../ports/index.js';

export interface SelectFlags {
  cap?: string;
  'no-preview'?: boolean;
}

function wholeNumber(raw: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`invalid value ${JSON.stringify(raw)} for --${flag}: expected a whole number from ${min} to ${max}`);
  return n;
}

/** Human-readable lines: the selection with reasons, then the counts. */
export function selectionText(r: HomepageSelection): string[] {
  const lines = [`selection for ${r.home} (profile ${r.profile}${r.query ? `, query "${r.query}"` : ''}):`];
  for (const [i, s] of r.selected.entries()) {
    lines.push(`  ${i + 1}. ${s.url}`);
    if (s.bucket !== 'home')
      lines.push(
        `     ${s.reason} — total ${s.total} (contextual ${s.contextual}, intrinsic ${s.intrinsic}, boost ${s.boost})${s.anchor ? `, anchor "${s.anchor}"` : ''}`,
      );
  }
  const c = r.counts;
  lines.push(
    `${c.candidates} candidates: ${c.filtered} filtered (excluded or external), ${c.hardExcluded} hard-excluded, ${c.aboveThreshold} above the threshold, ${c.skippedByRule} skipped by a bucket rule, ${c.selected} selected`,
    `${r.previews.fetched} heads previewed (${r.previews.refused} refused by robots.txt, ${r.previews.failed} failed) in ${(r.tookMs / 1000).toFixed(1)} s`,
  );
  return lines;
}

/** The selections a crawl ended with (`trawl crawl --select`), and where the report is. */
export function storedSelectionText(selections: SelectionRecord[], report: string): string[] {
  const lines: string[] = [];
  for (const s of selections) {
    lines.push(`selection for ${s.home} (profile ${s.profile}, ${s.previews} heads from the crawl):`);
    for (const [i, p] of s.selected.entries())
      lines.push(`  ${i + 1}. ${p.url}${p.reason && p.reason !== 'homepage' ? ` — ${p.reason}, total ${p.total}` : ''}`);
  }
  lines.push(`selection report: ${report}`);
  return lines;
}

/** `trawl select <homepage> [--profile P] [--query Q] [--cap N] [--no-preview] [--json]`: the homepage pass. */
export async function selectCommand(
  args: string[],
  flags: SelectFlags,
  settings: CrawlSettings,
  json: boolean,
  out: (line: string) => void,
): Promise<HomepageSelection> {
  const homepage = args[0];
  if (!homepage) throw new UsageError('trawl select needs the homepage URL: trawl select https://example.com/ [--profile fire-protection]');
  const result = await select(homepage, {
    ...settings,
    cap: wholeNumber(flags.cap, 'cap', 1, 50),
    preview: !flags['no-preview'],
  });
  if (json) {
    for (const l of result.links) {
      out(
        jsonLine({
          type: 'link',
          url: l.url,
          bucket: l.bucket,
          intrinsic_score: l.intrinsic,
          contextual_score: l.contextual,
          boost: l.boost,
          total_score: l.total,
          matched_patterns: l.matched,
          excluded: l.excluded ?? null,
          selected: result.selected.some((s) => s.url === l.url),
          selection_reason: result.selected.find((s) => s.url === l.url)?.reason ?? null,
        }),
      );
    }
    out(
      jsonLine({
        type: 'selection',
        home: result.home,
        profile: result.profile,
        query: result.query,
        selected: result.selected,
        counts: result.counts,
        previews: result.previews,
        tookMs: result.tookMs,
      }),
    );
  } else for (const line of selectionText(result)) out(line);
  return result;
}
