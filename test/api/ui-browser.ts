import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findBrowser } from '../../shared/render/browser-path.js';
import { launchArgs } from '../../shared/render/chromium.js';

/** A headless browser as a user would start it, in the given environment's locale (no --lang). */
export async function launchUiBrowser(env: Record<string, string> = {}): Promise<{ browser: Browser; close(): Promise<void> }> {
  const binary = await findBrowser();
  const profile = mkdtempSync(join(tmpdir(), 'trawl-ui-test-'));
  const browser = await puppeteer.launch({
    executablePath: binary.path,
    headless: binary.headlessShell ? 'shell' : true,
    pipe: true,
    userDataDir: profile,
    args: launchArgs(512, false),
    env: { ...process.env, ...env },
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
