// A run's activity on its COUNTERS item: `m<minute since epoch>` (requests that minute) and
// `m<minute>ok` (2xx answers), `lat<bucket>` (fetches per latency bucket, FETCH_LATENCY_BOUNDS_MS)
// and `latencyMs` (their sum), added by the update each fetch already makes.
import { FETCH_LATENCY_BOUNDS_MS, latencyBucket, type FetchRecord, type RunActivity } from '../ports/index.js';

const ACTIVITY_BUCKET_MS = 60_000;
const ACTIVITY_ATTRIBUTE = /^m(\d+)(ok)?$/;
const LATENCY_ATTRIBUTE = /^lat(\d+)$/;

/** The counter increments one fetch adds to the activity series and the latency histogram. */
export function activityCounters(record: FetchRecord): Record<string, number> {
  const minute = `m${Math.floor(record.fetchedAt / ACTIVITY_BUCKET_MS)}`;
  const ok = record.status !== undefined && record.status >= 200 && record.status < 300;
  return { [minute]: 1, [`${minute}ok`]: ok ? 1 : 0, [`lat${latencyBucket(record.durationMs)}`]: 1, latencyMs: record.durationMs };
}

/** The activity series and latency histogram read back from a COUNTERS item. */
export function activityOf(runId: number, counters: Record<string, unknown>): RunActivity {
  const points = new Map<number, { at: number; requests: number; ok: number }>();
  const counts: number[] = new Array<number>(FETCH_LATENCY_BOUNDS_MS.length + 1).fill(0);
  for (const [name, value] of Object.entries(counters)) {
    const m = ACTIVITY_ATTRIBUTE.exec(name);
    if (m) {
      const at = Number(m[1]) * ACTIVITY_BUCKET_MS;
      const point = points.get(at) ?? { at, requests: 0, ok: 0 };
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
