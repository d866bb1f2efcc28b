// How a render waits on its page: until its network and DOM are quiet, with a watch on whether its
// renderer still answers, and a cap on any one wait.
import type { Page } from 'puppeteer-core';
import { RenderError } from '../errors.js';

/** A page is settled when neither its network nor its DOM has moved for this long. */
export const QUIET_MS = 200;
/**
 * A page whose script does not let go of its renderer for this long is hung: nothing more will
 * come of it (not even its DOM), so the render ends as a hang then rather than at the cap.
 */
export const UNRESPONSIVE_MS = 5_000;
/** How often the page is asked whether its renderer answers. */
const PROBE_EVERY_MS = 1_000;

/**
 * Asks the page every PROBE_EVERY_MS whether its renderer answers; rejects with a hang when one
 * question waits UNRESPONSIVE_MS. `stop` ends the watch (its promise then never settles).
 */
export function watchResponsive(page: Page): { hung: Promise<never>; stop: () => void } {
  let stopped = false;
  const hung = (async (): Promise<never> => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
      if (stopped) break;
      try {
        await timeout(
          page.evaluate(() => 0),
          UNRESPONSIVE_MS,
          () => new RenderError('hang', `the page's script held its renderer for ${UNRESPONSIVE_MS / 1000} s: taken as hung`),
        );
      } catch (err) {
        // A navigation or a closed page answers with an error: only silence is a hang.
        if (err instanceof RenderError && !stopped) throw err;
      }
    }
    return new Promise<never>(() => undefined);
  })();
  return {
    hung,
    stop: () => {
      stopped = true;
    },
  };
}
/** The page's clock of its last DOM change (installed before its scripts run). */
export const MUTATION_CLOCK = `(() => {
  window.__trawlLastMutation = performance.now();
  new MutationObserver(() => { window.__trawlLastMutation = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})();`;

/**
 * Waits until the page's network and DOM have both been quiet for QUIET_MS, or `withinMs` passed
 * (false then). A fixed network-idle window made every render wait its full length.
 */
export async function quiet(page: Page, withinMs: number): Promise<boolean> {
  const end = performance.now() + withinMs;
  for (;;) {
    const left = end - performance.now();
    if (left <= 0) return false;
    try {
      await page.waitForNetworkIdle({ idleTime: QUIET_MS, timeout: left });
    } catch {
      return false;
    }
    const still = await page.evaluate(() => performance.now() - ((window as unknown as { __trawlLastMutation?: number }).__trawlLastMutation ?? 0));
    if (still >= QUIET_MS) return true;
    await new Promise((r) => setTimeout(r, Math.min(QUIET_MS - still, Math.max(0, end - performance.now()))));
  }
}

export function timeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), ms)))]).finally(() => clearTimeout(timer));
}
