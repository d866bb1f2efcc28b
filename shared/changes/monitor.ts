/**
 * A crawl's monitor: which of its changes are told (events, webhooks, the crawl's output). Every
 * change is kept either way; `trawl changes` lists them all.
 */
import type { CrawlSettings } from '../config/settings.js';
import type { ChangeKind, ChangeRecord } from '../ports/index.js';

export interface Monitor {
  /** URL path prefixes; empty: every path. */
  paths: string[];
  /** Kinds told; empty: every kind but `unchanged`. */
  kinds: ChangeKind[];
  /** A changed page is told when at least this share of its text blocks changed (0: any change)… */
  minChange: number;
  /** …or one of these metadata or CSS-selected fields changed. With fields and no minimum, only a field change is told. */
  fields: string[];
}

export function monitorOf(settings: Pick<CrawlSettings, 'monitorPath' | 'monitorKind' | 'monitorMinChange' | 'monitorField'>): Monitor {
  return { paths: settings.monitorPath, kinds: settings.monitorKind, minChange: settings.monitorMinChange, fields: settings.monitorField };
}

/** Whether the monitor tells this change. */
export function told(monitor: Monitor, change: ChangeRecord): boolean {
  if (monitor.kinds.length ? !monitor.kinds.includes(change.kind) : change.kind === 'unchanged') return false;
  if (!underPaths(change.url, monitor.paths)) return false;
  if (change.kind !== 'changed' || !change.measure) return true;
  const { blocksChanged, fieldsChanged } = change.measure;
  const fieldHit = monitor.fields.some((f) => fieldsChanged.includes(f) || fieldsChanged.includes(`fields.${f}`));
  if (monitor.minChange > 0) return blocksChanged >= monitor.minChange || fieldHit;
  return monitor.fields.length ? fieldHit : true;
}

/** Whether a URL's path (and query) starts with one of the prefixes; true for none. */
export function underPaths(url: string, prefixes: readonly string[]): boolean {
  if (prefixes.length === 0) return true;
  let path = url;
  try {
    const u = new URL(url);
    path = u.pathname + u.search;
  } catch {
    // not a URL: compared as it is
  }
  return prefixes.some((p) => path.startsWith(p));
}
