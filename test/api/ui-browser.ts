import { chromium, type Browser } from 'playwright-core';
import { findBrowser } from '../../shared/render/browser-path.js';
import { DRIVER_DEFAULTS_REFUSED, launchArgs } from '../../shared/render/browser-process.js';

/** A headless browser as a user would start it, in the given environment's locale (no --lang). */
export async function launchUiBrowser(env: Record<string, string> = {}): Promise<{ browser: Browser; close(): Promise<void> }> {
  const binary = await findBrowser();
  const browser = await chromium.launch({
    executablePath: binary.path,
    headless: true,
    args: launchArgs(512, false),
    ignoreDefaultArgs: DRIVER_DEFAULTS_REFUSED,
    env: { ...process.env, ...env },
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}
