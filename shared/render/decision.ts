import type { RenderMode } from '../config/render-settings.js';
import type { ShellSignals } from '../extract/shell-signals.js';

/** What rendering has brought one host in one run: kept in the host's state, so every worker sees it. */
export interface HostRenderStats {
  runId: number;
  /** Rendered pages that gained text or links. */
  gained: number;
  /** Rendered pages that gained nothing: a host with only these stops being rendered. */
  wasted: number;
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
 * Whether one fetched HTML page goes through Chromium. `mode` is the host's (its override, else the
 * crawl's); `host` is what rendering brought the host this run.
 */
export function renderDecision(signals: ShellSignals | undefined, mode: RenderMode, runId: number, host?: HostRenderStats): RenderDecision {
  if (mode === 'never') return { render: false, reason: 'render-never' };
  if (mode === 'always') return { render: true, reason: 'render-always' };
  const stats = statsOf(host, runId);
  if (gainsNothing(stats)) return { render: false, reason: `host-gains-nothing (${stats.wasted} renders without new text or links)` };
  const shell = signals && shellReason(signals);
  if (shell) return { render: true, reason: shell };
  // A page with no script cannot change; a page with plenty of text is served rendered already.
  const scripted = signals !== undefined && signals.scripts > 0 && signals.textChars < R_HOST_TEXT;
  if (scripted && stats.gained > 0 && stats.gained >= stats.wasted) return { render: true, reason: 'host-needs-rendering' };
  return { render: false, reason: 'enough-content' };
}

/** Whether the rendered page has more than what was served: new text, or new links. */
export function renderGained(served: Pick<ShellSignals, 'textChars' | 'links'>, rendered: { textChars: number; links: number }): boolean {
  const R = RENDER_RULES;
  const extra = rendered.textChars - served.textChars;
  return (extra > R.textGainChars && extra > served.textChars * R.textGainShare) || rendered.links > served.links;
}

/** The host's stats after one render. */
export function afterRender(host: HostRenderStats | undefined, runId: number, gained: boolean): HostRenderStats {
  const s = statsOf(host, runId);
  return gained ? { ...s, gained: s.gained + 1 } : { ...s, wasted: s.wasted + 1 };
}
