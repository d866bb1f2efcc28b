// The homepage pass: fetch a homepage politely, score its links with a profile, preview the heads
// of the best candidates, and select the few pages that explain what the site does.
import { decodeBody, sniffCharset } from '../fetch/charset.js';
import { fetcherFor } from '../fetch/http-fetcher.js';
import { UsageError } from '../errors.js';
import { extractLinksOnly } from '../extract/extract-page.js';
import { fetchRobotsTxt } from '../pipeline/stages/robots-stage.js';
import { robotsAllows, robotsCrawlDelayMs } from '../robots/robots-policy.js';
import { productToken } from '../robots/robots-txt.js';
import { headOf, previewFetcherFor } from '../scoring/head-preview.js';
import { loadProfile, type Profile } from '../scoring/profile.js';
import { selectWithPreviews, type Candidate, type HeadLookup, type Selection } from '../scoring/select.js';
import { canonicalize } from '../url/canonical.js';
import { settingsOf } from './crawl.js';
import type { CrawlSettingsOptions } from './settings-options.js';

/** Heads previewed at most (the bound: 30). */
export const MAX_PREVIEWS = 30;

export interface SelectOptions extends CrawlSettingsOptions {
  /** Pages to select, the homepage included. @default the profile's cap */
  cap?: number;
  /** Fetch the heads of the best candidates for their title and description. @default true */
  preview?: boolean;
  /** Candidates previewed (1–30). @default 20 */
  previews?: number;
  /** Per preview. @default 5000 */
  previewTimeoutMs?: number;
  /** @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

export interface HomepageSelection extends Selection {
  home: string;
  profile: string;
  query: string;
  /** Heads fetched, and those refused by robots.txt or failed. */
  previews: { fetched: number; refused: number; failed: number };
  tookMs: number;
}

/**
 * The homepage pass. Politeness as in a crawl: robots.txt first (a disallowed homepage is an
 * error; a disallowed candidate is not previewed), the host's delay (or its Crawl-delay) between
 * requests, one request at a time (every candidate is on the homepage's host).
 *
 * @example const { selected } = await select('https://example.com/', { profile: 'fire-protection' });
 */
export async function select(homepage: string, options: SelectOptions = {}): Promise<HomepageSelection> {
  const started = performance.now();
  const settings = settingsOf(options);
  const base = loadProfile(settings.profile);
  const profile: Profile = { ...base, cap: options.cap ?? base.cap };
  const query = settings.query.trim() || profile.query;
  const home = canonicalize(homepage);
  if (!home) throw new UsageError(`invalid homepage ${JSON.stringify(homepage)}: give an absolute http(s) URL`);
  const previewCount = options.previews ?? 20;
  if (!Number.isInteger(previewCount) || previewCount < 1 || previewCount > MAX_PREVIEWS)
    throw new UsageError(`previews is ${previewCount}; it must be a whole number from 1 to ${MAX_PREVIEWS}`);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const token = productToken(settings.userAgent);
  const fetcher = fetcherFor(settings);
  const previewFetcher = previewFetcherFor(settings, { timeoutMs: options.previewTimeoutMs });
  try {
    const origin = new URL(home).origin;
    const { policy } = await fetchRobotsTxt(fetcher, origin, token);
    const delay = Math.max(settings.delayMs, robotsCrawlDelayMs(policy));
    const target = new URL(home);
    if (!robotsAllows(policy, target.pathname + target.search))
      throw new UsageError(`robots.txt of ${target.host} does not allow ${home} for ${token}: not fetched`);
    await sleep(delay);
    const res = await fetcher.fetch({ url: home, kind: 'page' });
    if (res.status !== 200 || !res.body) throw new UsageError(`${home} answered HTTP ${res.status}: no homepage to select from`);
    const html = decodeBody(res.body, sniffCharset(res.body, res.charset, true));
    const page = extractLinksOnly(html, home, { canonicalize: (h) => canonicalize(h), robotsToken: token });
    const candidates: Candidate[] = page.links.map((l) => ({
      url: l.url,
      anchor: l.anchorText,
      section: l.section,
      sameHost: new URL(l.url).host === target.host,
    }));

    // Preview the heads of the best candidates by their score without a preview.
    const previews = { fetched: 0, refused: 0, failed: 0 };
    const head: HeadLookup = async (url) => {
      const u = new URL(url);
      if (!robotsAllows(policy, u.pathname + u.search)) {
        previews.refused++;
        return undefined;
      }
      await sleep(delay);
      try {
        const head = headOf(await previewFetcher.fetch({ url, kind: 'page', stopAfter: '</head>' }), url);
        if (head) previews.fetched++;
        else previews.failed++;
        return head;
      } catch {
        previews.failed++;
        return undefined;
      }
    };
    const selection = await selectWithPreviews(home, candidates, {
      profile,
      query,
      previews: previewCount,
      head: options.preview === false ? undefined : head,
    });
    return { ...selection, home, profile: profile.name, query, previews, tookMs: Math.round(performance.now() - started) };
  } finally {
    await Promise.all([fetcher.close(), previewFetcher.close()]);
  }
}
