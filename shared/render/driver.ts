// The browser driver, playwright-core: an optional dependency, loaded when the first browser starts.
import { isModuleMissing, RenderError } from '../errors.js';

const importPlaywright = () => import('playwright-core');
/** Playwright's Chromium launcher. */
export type ChromiumDriver = Awaited<ReturnType<typeof importPlaywright>>['chromium'];

/** What trawl says when the browser driver is not installed. */
export const DRIVER_MISSING =
  'rendering needs playwright-core, an optional dependency of trawl that npm install --omit=optional leaves out: npm install playwright-core, or crawl with --render never';

/**
 * playwright-core's Chromium launcher, loaded when the first browser starts. It is an optional
 * dependency (with the Chromium of `@sparticuz/chromium`): an install without optional
 * dependencies crawls, extracts and searches, and a page that asks for rendering is extracted as
 * served, with this reason.
 */
export async function loadDriver(load: () => Promise<{ chromium: ChromiumDriver }> = importPlaywright): Promise<ChromiumDriver> {
  try {
    return (await load()).chromium;
  } catch (err) {
    if (isModuleMissing(err)) throw new RenderError('browser-missing', DRIVER_MISSING, { cause: err });
    throw err;
  }
}
