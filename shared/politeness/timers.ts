import { MAX_TIMER_MS } from '../config/settings.js';

/**
 * A delay setTimeout can run as asked: Node turns anything above 2³¹−1 ms (24.8 days) into
 * 1 ms with a TimeoutOverflowWarning, so every timer goes through this clamp.
 */
export function timerDelay(ms: number): number {
  if (!Number.isFinite(ms)) return ms > 0 ? MAX_TIMER_MS : 0;
  return Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(ms)));
}

/** Resolves after `ms` (clamped to what a timer can hold). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, timerDelay(ms)));
}
