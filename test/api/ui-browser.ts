import puppeteer, { type Browser } from 'puppeteer-core';
import { findBrowser } from '../../shared/render/browser-path.js';
import { DRIVER_DEFAULTS_REFUSED, launchArgs } from '../../shared/render/browser-process.js';

/** A headless browser as a user would start it, in the given environment's locale (no --lang), driven by trawl's browser driver. */
export async function launchUiBrowser(env: Record<string, string> = {}): Promise<{ browser: Browser; close(): Promise<void> }> {
  const binary = await findBrowser();
  const browser = await puppeteer.launch({
    executablePath: binary.path,
    headless: 'shell',
    args: launchArgs(512, false),
    ignoreDefaultArgs: DRIVER_DEFAULTS_REFUSED,
    env: { ...process.env, ...env },
    pipe: true,
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
