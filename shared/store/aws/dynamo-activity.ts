// A run's activity: one ACT#<minute> item a minute (requests, 2xx answers, 304s) and, on its COUNTERS
// item, `lat<bucket>` (fetches per latency bucket, FETCH_LATENCY_BOUNDS_MS) and `latencyMs` (their
// sum). The series once rode on COUNTERS as `m<minute>` attributes, growing the item by ~26 bytes
// a minute: a day into a run each update cost 37 write units and the per-item limit capped the
// run at ~5 pages/s (review of 2026-11). Those attributes are still read, for older tables.
import { FETCH_LATENCY_BOUNDS_MS, latencyBucket, type FetchRecord, type RunActivity } from '../../ports/index.js';

const ACTIVITY_BUCKET_MS = 60_000;
const ACTIVITY_ATTRIBUTE = /^m(\d+)(ok)?$/;
const LATENCY_ATTRIBUTE = /^lat(\d+)$/;

/** The counter increments one fetch adds to the latency histogram on COUNTERS (a fixed set of attributes). */
export function latencyCounters(record: FetchRecord): Record<string, number> {
  return { [`lat${latencyBucket(record.durationMs)}`]: 1, latencyMs: record.durationMs };
}

/** The minute a fetch counts in, and its increments of that minute's ACT item (requests, 2xx answers, 304s). */
export function minuteCounters(record: Pick<FetchRecord, 'fetchedAt' | 'status' | 'notModified'>): {
  minute: number;
  requests: number;
  ok: number;
  unchanged: number;
} {
  const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
  return { minute: Math.floor(record.fetchedAt / ACTIVITY_BUCKET_MS), requests: 1, ok: ok ? 1 : 0, unchanged: record.notModified ? 1 : 0 };
}

/** The activity series and latency histogram read back from a COUNTERS item. */
export function activityOf(runId: number, counters: Record<string, unknown>, minutes: ReadonlyArray<Record<string, unknown>> = []): RunActivity {
  const points = new Map<number, RunActivity['points'][number]>();
  for (const item of minutes) {
    const at = Number(String(item.SK).slice('ACT#'.length)) * ACTIVITY_BUCKET_MS;
    const point = points.get(at) ?? { at, requests: 0, ok: 0, unchanged: 0 };
    point.requests += Number(item.requests ?? 0);
    point.ok += Number(item.ok ?? 0);
    point.unchanged += Number(item.unchanged ?? 0);
    points.set(at, point);
  }
  const counts: number[] = new Array<number>(FETCH_LATENCY_BOUNDS_MS.length + 1).fill(0);
  for (const [name, value] of Object.entries(counters)) {
    const m = ACTIVITY_ATTRIBUTE.exec(name);
    if (m) {
      const at = Number(m[1]) * ACTIVITY_BUCKET_MS;
      const point = points.get(at) ?? { at, requests: 0, ok: 0, unchanged: 0 };
      point[m[2] ? 'ok' : 'requests'] = Number(value);
      points.set(at, point);
    }
    const l = LATENCY_ATTRIBUTE.exec(name);
    if (l) counts[Number(l[1])] = Number(value);
  }
  return {
    runId,
    bucketMs: ACTIVITY_BUCKET_MS,
    points: [...points.values()].sort((a, b) => a.at - b.at),
    latency: { counts, sumMs: Number(counters.latencyMs ?? 0) },
  };
}
