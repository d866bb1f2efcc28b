// Page actions: what a crawl asks the renderer to do to a page before it is read (click "load
// more", dismiss a consent wall, scroll an endless list, type into a box, run a script of the
// user's). They run in the guarded page in order, each bounded in time; every request they cause
// goes through the same interception and guard proxy as the page's own.
import type { Page } from 'puppeteer-core';
import { errorMessage } from '../errors.js';
import { quiet, timeout } from './page-wait.js';

/** One action, named as Firecrawl names them (`write` is also `type`). */
export type PageAction =
  | { type: 'wait'; milliseconds?: number; selector?: string }
  | { type: 'click'; selector: string; all?: boolean }
  | { type: 'scroll'; direction?: 'down' | 'up'; times?: number }
  | { type: 'write' | 'type'; selector?: string; text: string }
  | { type: 'press'; key: string }
  | { type: 'screenshot'; fullPage?: boolean }
  | { type: 'executeJavascript'; script: string };

/** What one action did: how long it took, and why it failed (the next ones run all the same). */
export interface ActionLog {
  type: PageAction['type'];
  ok: boolean;
  ms: number;
  error?: string;
}

/** The longest one action may take (a `wait` of more is cut to it). */
export const ACTION_MS = 10_000;
/** How long the page may take to go quiet after an action before the next one. */
const AFTER_ACTION_MS = 2_000;
/** Scrolls to the end of an endless list at most this many times. */
export const MAX_SCROLLS = 20;

/** Runs the actions in order; `onScreenshot` is told each screenshot an action takes. */
export async function runActions(page: Page, actions: readonly PageAction[], onScreenshot: (shot: Buffer) => void): Promise<ActionLog[]> {
  const log: ActionLog[] = [];
  for (const action of actions) {
    const started = performance.now();
    try {
      await timeout(act(page, action, onScreenshot), ACTION_MS, () => new Error(`took over ${ACTION_MS / 1000} s`));
      log.push({ type: action.type, ok: true, ms: Math.round(performance.now() - started) });
    } catch (err) {
      log.push({ type: action.type, ok: false, ms: Math.round(performance.now() - started), error: errorMessage(err).slice(0, 300) });
    }
  }
  return log;
}

async function act(page: Page, action: PageAction, onScreenshot: (shot: Buffer) => void): Promise<void> {
  switch (action.type) {
    case 'wait':
      if (action.selector) await page.waitForSelector(action.selector, { timeout: ACTION_MS });
      else await new Promise((r) => setTimeout(r, Math.min(action.milliseconds ?? 1000, ACTION_MS)));
      return;
    case 'click':
      if (action.all) {
        const handles = await page.$$(action.selector);
        if (handles.length === 0) throw new Error(`no element matches ${action.selector}`);
        for (const h of handles) await h.click();
      } else {
        const handle = await page.$(action.selector);
        if (!handle) throw new Error(`no element matches ${action.selector}`);
        await handle.click();
      }
      await quiet(page, AFTER_ACTION_MS);
      return;
    case 'scroll':
      await scroll(page, action.direction ?? 'down', Math.min(action.times ?? MAX_SCROLLS, MAX_SCROLLS));
      return;
    case 'write':
    case 'type':
      if (action.selector) await page.click(action.selector);
      await page.keyboard.type(action.text);
      await quiet(page, AFTER_ACTION_MS);
      return;
    case 'press':
      await page.keyboard.press(action.key as Parameters<Page['keyboard']['press']>[0]);
      await quiet(page, AFTER_ACTION_MS);
      return;
    case 'screenshot':
      onScreenshot(Buffer.from(await page.screenshot({ type: 'png', fullPage: action.fullPage ?? false })));
      return;
    case 'executeJavascript':
      // The user's own script, in the page: what it asks for passes the page's guard.
      await page.evaluate(action.script);
      await quiet(page, AFTER_ACTION_MS);
      return;
  }
}

/** To the end (or the top), again while the page grows, `times` at most. */
async function scroll(page: Page, direction: 'down' | 'up', times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const before = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.evaluate((down: boolean) => window.scrollTo(0, down ? document.documentElement.scrollHeight : 0), direction === 'down');
    await quiet(page, AFTER_ACTION_MS);
    if (direction === 'up' || (await page.evaluate(() => document.documentElement.scrollHeight)) <= before) return;
  }
}
