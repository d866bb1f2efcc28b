import { ProviderError, type ProviderFailure } from '../errors.js';

export { ProviderError, type ProviderFailure } from '../errors.js';

export interface RetryOptions {
  /** Calls in all, the first included. @default 6 */
  attempts?: number;
  /** The first back-off; doubled per attempt, capped at `maxMs`, with full jitter. @default 500 */
  baseMs?: number;
  maxMs?: number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs a model call, retrying throttling and outages with exponential back-off and full jitter
 * (a server's Retry-After is a floor); any other error is thrown at once.
 */
export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { attempts = 6, baseMs = 500, maxMs = 30_000, random = Math.random, sleep = realSleep } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || attempt >= attempts) throw err;
      const backoff = Math.min(maxMs, baseMs * 2 ** (attempt - 1)) * random();
      await sleep(Math.min(maxMs, Math.max(backoff, err.retryAfterMs ?? 0)));
    }
  }
}

/** Retry-After as milliseconds: delta seconds or an HTTP date (RFC 9110 §10.2.3); `retry-after-ms` wins when sent. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The failure kind of an HTTP status from a model API. */
export function failureOfStatus(status: number): ProviderFailure {
  if (status === 429) return 'throttled';
  if (status >= 500 || status === 408) return 'unavailable';
  return 'rejected';
}
