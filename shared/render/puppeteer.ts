// The browser driver, puppeteer-core: an optional dependency, loaded when the first browser starts.
import { isModuleMissing, RenderError } from '../errors.js';

const importPuppeteer = () => import('puppeteer-core');
type Puppeteer = Awaited<ReturnType<typeof importPuppeteer>>['default'];

/** What trawl says when the browser driver is not installed. */
export const PUPPETEER_MISSING =
  'rendering needs puppeteer-core, an optional dependency of trawl that npm install --omit=optional leaves out: npm install puppeteer-core, or crawl with --render never';

/**
 * puppeteer-core, loaded when the first browser starts. It is an optional dependency (with the
 * Chromium of `@sparticuz/chromium`): an install without optional dependencies crawls, extracts
 * and searches, and a page that asks for rendering is extracted as served, with this reason.
 */
export async function loadPuppeteer(load: () => Promise<{ default: Puppeteer }> = importPuppeteer): Promise<Puppeteer> {
  try {
    return (await load()).default;
  } catch (err) {
    if (isModuleMissing(err)) throw new RenderError('browser-missing', PUPPETEER_MISSING, { cause: err });
    throw err;
  }
}
