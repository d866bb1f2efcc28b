import type { RenderMode } from '../config/render-settings.js';
import type { ShellSignals } from '../extract/shell-signals.js';

/** Renders of one kind of page: those that gained text or links, and those that gained nothing. */
export interface RenderTally {
  gained: number;
  wasted: number;
}

/** What rendering has brought one host in one run: kept in the host's state, so every worker sees it. */
export interface HostRenderStats extends RenderTally {
  runId: number;
  /**
   * The same by page template (`templateOf`), at most `RENDER_RULES.templatesKept` of them: a
   * template whose renders gained nothing stops being rendered while the host's others go on.
   */
  templates?: Record<string, RenderTally>;
}

export interface RenderDecision {
  render: boolean;
  /** Why, for the page record: `empty-root #root`, `enough-content`, `host-gains-nothing`, … */
  reason: string;
}

/** Thresholds of the decision; measured against the real-page corpus (none of its server-rendered pages is flagged). */
export const RENDER_RULES = {
  /** A framework marker or a `<noscript>` warning counts with less visible text than this. */
  thinTextChars: 200,
  /** An empty application root counts with less visible text than this (a widget mount on a full page does not). */
  rootTextChars: 1000,
  /** Visible text under this share of the markup is "little text for the markup size"… */
  textShare: 0.02,
  /** …on pages at least this large… */
  minShellBytes: 4096,
  /** …with less visible text than this. */
  littleTextChars: 500,
  /** A host stops being rendered after this many renders that gained nothing… */
  wastedLimit: 3,
  /** …unless at least one in this many gained something. */
  gainRatio: 4,
  /** A page template stops being rendered after this many renders that gained nothing, none that gained… */
  templateWastedLimit: 2,
  /** …and the host keeps the tallies of this many templates at most (the oldest goes). */
  templatesKept: 50,
  /** A render gains text when it adds more than this many characters… */
  textGainChars: 100,
  /** …and more than this share of what was served. */
  textGainShare: 0.2,
};

const R_HOST_TEXT = RENDER_RULES.rootTextChars;

/** The host's stats for this run (stats of an earlier run do not count). */
function statsOf(host: HostRenderStats | undefined, runId: number): HostRenderStats {
  return host && host.runId === runId ? host : { runId, gained: 0, wasted: 0 };
}

/**
 * A page's template: its path with every segment that holds a digit (ids, dates, slugs with
 * numbers) as `:n`, and no query. `/spa/12` and `/spa/13` are one template; `/about` is its own.
 */
export function templateOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return url;
  }
  return path
    .split('/')
    .map((segment) => (/\d/.test(segment) ? ':n' : segment))
    .join('/');
}

/** Whether rendering has proved useless on a host this run. */
function gainsNothing(s: HostRenderStats): boolean {
  return s.wasted >= RENDER_RULES.wastedLimit && s.gained * RENDER_RULES.gainRatio < s.wasted;
}

/** What in the served page says its content comes from JavaScript; undefined when nothing does. */
export function shellReason(s: ShellSignals): string | undefined {
  const R = RENDER_RULES;
  if (s.emptyRoot && s.textChars < R.rootTextChars) return `empty-root ${s.emptyRoot}`;
  if (s.loading) return 'loading-shell';
  if (s.noscriptWarning && s.textChars < R.thinTextChars) return 'noscript-warning';
  if (s.framework && s.textChars < R.thinTextChars) return `framework-without-content ${s.framework}`;
  if (s.scripts > 0 && s.htmlBytes >= R.minShellBytes && s.textChars < R.littleTextChars && s.textChars < s.htmlBytes * R.textShare)
    return `little-text ${s.textChars} chars in ${s.htmlBytes} bytes`;
  return undefined;
}

/**
 * With `--render auto`, the decision not to render a page because renders of its host, or of its
 * template on the host, have gained nothing this run; undefined when they have not. Asked when a
 * page is fetched, and again when its render's turn comes: renders that ran meanwhile count.
 */
export function renderStopped(mode: RenderMode, runId: number, host?: HostRenderStats, url?: string): RenderDecision | undefined {
  if (mode !== 'auto') return undefined;
  const stats = statsOf(host, runId);
  if (gainsNothing(stats)) return { render: false, reason: `host-gains-nothing (${stats.wasted} renders without new text or links)` };
  const template = url === undefined ? undefined : templateOf(url);
  const tally = template === undefined ? undefined : stats.templates?.[template];
  if (tally && tally.gained === 0 && tally.wasted >= RENDER_RULES.templateWastedLimit)
    return { render: false, reason: `template-gains-nothing ${template} (${tally.wasted} renders without new text or links)` };
  return undefined;
}

/**
 * The page's template when renders of it have not yet gained text or links this run (undefined
 * when they have, or every page is rendered): a page of such a kind waits for the outcome of the
 * render of its kind under way, while pages of a kind shown to gain render side by side.
 */
export function renderExploring(mode: RenderMode, runId: number, host: HostRenderStats | undefined, url: string): string | undefined {
  if (mode === 'always') return undefined;
  const template = templateOf(url);
  return (statsOf(host, runId).templates?.[template]?.gained ?? 0) > 0 ? undefined : template;
}

/**
 * Whether one fetched HTML page goes through Chromium. `mode` is the host's (its override, else the
 * crawl's); `host` is what rendering brought the host this run; `url`, the page's (its template's
 * renders count too).
 */
export function renderDecision(signals: ShellSignals | undefined, mode: RenderMode, runId: number, host?: HostRenderStats, url?: string): RenderDecision {
  if (mode === 'never') return { render: false, reason: 'render-never' };
  if (mode === 'always') return { render: true, reason: 'render-always' };
  const stopped = renderStopped(mode, runId, host, url);
  if (stopped) return stopped;
  const stats = statsOf(host, runId);
  const shell = signals && shellReason(signals);
  if (shell) return { render: true, reason: shell };
  // A page with no script cannot change; a page with plenty of text is served rendered already.
  const scripted = signals !== undefined && signals.scripts > 0 && signals.textChars < R_HOST_TEXT;
  if (scripted && stats.gained > 0 && stats.gained >= stats.wasted) return { render: true, reason: 'host-needs-rendering' };
  return { render: false, reason: 'enough-content' };
}

/**
 * What stopped rendering a page the decision did not render, from its reason: `template <t>` or
 * `host` when renders of its template or host had gained nothing; undefined for any other reason.
 */
export function renderStoppedBy(reason: string): string | undefined {
  const template = /^template-gains-nothing (\S+)/.exec(reason);
  if (template) return `template ${template[1]}`;
  return reason.startsWith('host-gains-nothing') ? 'host' : undefined;
}

/**
 * Whether a render is evidence about rendering the page's template and host: it gained something,
 * or it ran to the end (the network went quiet) and gained nothing. A render that failed (a
 * crash, a hang, a browser that did not start) or was cut short before its page was idle says
 * nothing: under load a page's script may not have run yet.
 */
export function renderIsEvidence(capture: { ok: boolean; gained: boolean; settled: boolean }): boolean {
  return capture.ok && (capture.gained || capture.settled);
}

/** Whether the rendered page has more than what was served: new text, or new links. */
export function renderGained(served: Pick<ShellSignals, 'textChars' | 'links'>, rendered: { textChars: number; links: number }): boolean {
  const R = RENDER_RULES;
  const extra = rendered.textChars - served.textChars;
  return (extra > R.textGainChars && extra > served.textChars * R.textGainShare) || rendered.links > served.links;
}

/** The host's stats after one render (of the page at `url`, whose template is tallied too). */
export function afterRender(host: HostRenderStats | undefined, runId: number, gained: boolean, url?: string): HostRenderStats {
  const s = statsOf(host, runId);
  const next = gained ? { ...s, gained: s.gained + 1 } : { ...s, wasted: s.wasted + 1 };
  if (url === undefined) return next;
  const template = templateOf(url);
  const before = s.templates?.[template] ?? { gained: 0, wasted: 0 };
  // Re-inserted last, so the oldest template is the first key when the tallies are full.
  const templates = Object.fromEntries(Object.entries(s.templates ?? {}).filter(([t]) => t !== template));
  templates[template] = gained ? { ...before, gained: before.gained + 1 } : { ...before, wasted: before.wasted + 1 };
  const keys = Object.keys(templates);
  for (const old of keys.slice(0, Math.max(0, keys.length - RENDER_RULES.templatesKept))) delete templates[old];
  return { ...next, templates };
}

/** What `renderConcurrencyFor` weighs: the cores, the free memory, and what one rendering page may hold. */
export interface RenderCapacity {
  cores: number;
  freeMb: number;
  /** `--render-memory-mb`, a page's JavaScript heap cap. */
  pageMemoryMb: number;
}

/**
 * Pages rendering at once: the setting, or with `auto` one a core (a render is layout and script
 * work) as long as each can reach its heap cap plus ~150 MB of renderer in free memory, from 1 to
 * 8. Renders of one host wait for each other anyway (the render is a visit to the host).
 */
export function renderConcurrencyFor(setting: 'auto' | number, capacity: RenderCapacity): number {
  if (setting !== 'auto') return setting;
  const byMemory = Math.floor(capacity.freeMb / (capacity.pageMemoryMb + 150));
  return Math.max(1, Math.min(8, capacity.cores, byMemory));
}
