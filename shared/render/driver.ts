// The browser driver, puppeteer-core: an optional dependency, loaded when the first browser starts.
import { isModuleMissing, RenderError } from '../errors.js';

const importPuppeteer = () => import('puppeteer-core');
/** puppeteer-core's launcher. */
export type ChromiumDriver = Awaited<ReturnType<typeof importPuppeteer>>['default'];

/** What trawl says when the browser driver is not installed. */
export const DRIVER_MISSING =
  'rendering needs puppeteer-core, an optional dependency of trawl that npm install --omit=optional leaves out: npm install puppeteer-core, or crawl with --render never';

/**
 * puppeteer-core's launcher, loaded when the first browser starts. It is an optional dependency
 * (with the Chromium of `@sparticuz/chromium`): an install without optional dependencies crawls,
 * extracts and searches, and a page that asks for rendering is extracted as served, with this
 * reason.
 */
export async function loadDriver(load: () => Promise<{ default: ChromiumDriver }> = importPuppeteer): Promise<ChromiumDriver> {
  try {
    return (await load()).default;
  } catch (err) {
    if (isModuleMissing(err)) throw new RenderError('browser-missing', DRIVER_MISSING, { cause: err });
    throw err;
  }
}
