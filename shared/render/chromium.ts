import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { errorMessage, RenderError } from '../errors.js';
import type { Resolver } from '../fetch/address-guard.js';
import type { Logger } from '../log/logger.js';
import { findBrowser, type BrowserBinary } from './browser-path.js';
import { loadDriver } from './driver.js';
import { MUTATION_CLOCK, quiet, timeout, watchResponsive } from './page-wait.js';

export { QUIET_MS, UNRESPONSIVE_MS } from './page-wait.js';
import { browserPid, DRIVER_DEFAULTS_REFUSED, exited, kill, launchArgs, PROFILE_PREFIX, sweepStaleProfiles } from './browser-process.js';
import { ACTION_MS, runActions } from './actions.js';
import { guardPage, type Traffic } from './intercept.js';
import { SubresourceMemo } from './subresource-memo.js';

export { launchArgs, sweepStaleProfiles } from './browser-process.js';
import type { BlockReason, Renderer, RenderOutput, RenderRequest } from './renderer.js';
import { HostContexts, sinkProxy, SoleContext, type ContextLease, type ContextSource, type PageSink } from './host-contexts.js';
import { RequestPolicy } from './request-policy.js';

/** The most time a page's actions add to its render's cap. */
const ACTIONS_MS = 120_000;

export interface ChromiumOptions {
  userAgent: string;
  /** Pages rendering at once. */
  concurrency: number;
  /** Hard cap of one attempt, navigation included: past it the page is a hang. */
  timeoutMs: number;
  /** Longest wait for the network to go idle once the document has loaded. */
  settleMs: number;
  maxRequests: number;
  /** Pages one browser serves before a fresh one replaces it. */
  recycleAfter: number;
  /** JavaScript heap of a page (V8 --max-old-space-size): a page past it crashes its tab alone. */
  memoryMb: number;
  allowPrivateNetwork: boolean;
  resolver?: Resolver;
  /** A full-page screenshot is cut at this height (px). */
  screenshotMaxHeight?: number;
  logger?: Logger;
  /** The browser to launch; default: `findBrowser()`. */
  binary?: BrowserBinary;
  /**
   * Chromium in one process, as Lambda needs it (default: in Lambda). It then has one browser
   * context (`SoleContext`): one page at a time, and a fresh browser for each host in turn.
   */
  singleProcess?: boolean;
}

const VIEWPORT = { width: 1280, height: 800 };
/** A browser that does not close within this long is killed. */
const CLOSE_GRACE_MS = 5_000;
/** Time kept after the settle wait for taking the DOM (and the screenshot) inside the hard cap. */
const SETTLE_MARGIN_MS = 1_500;
/** One browser process, its profile, and what it has served. */
interface Slot {
  browser: Browser;
  pid?: number;
  profile: string;
  served: number;
  active: number;
  dead: boolean;
  /** Its browser contexts: one per host, or in single-process mode its one context. */
  contexts: ContextSource;
  /** Rejects when the browser goes away (crash, kill): every page of it fails at once. */
  gone: Promise<never>;
}

/**
 * Headless Chromium behind the Renderer port: one browser per process, started on the first page
 * that needs it, at most `concurrency` pages at once. A host's pages share a browser context, one
 * page at a time (`HostContexts`: its scripts come from the context's cache after the first page;
 * no cookie, storage or cache is shared between hosts); in single-process mode (Lambda) the
 * browser's one context serves one host at a time (`SoleContext`). The browser is replaced after
 * `recycleAfter` pages and after a crash or a hang; the page that met the crash or hang is tried
 * once more. Every request a page makes goes through `RequestPolicy`.
 */
export class ChromiumRenderer implements Renderer {
  private slot: Slot | undefined;
  private launching: Promise<Slot> | undefined;
  private binary: Promise<BrowserBinary> | undefined;
  private running = 0;
  private readonly queue: Array<() => void> = [];
  private closed = false;
  private readonly retiring = new Set<Promise<void>>();
  private readonly live = new Set<Slot>();
  private readonly onExit = () => this.killAll();
  /** Browsers started, and attempts that crashed or hung: for logs, benchmarks and tests. */
  readonly stats = { launches: 0, crashes: 0, hangs: 0, retries: 0 };
  /** Scripts, styles and fonts the renders received, for pages whose context has them in no cache. */
  private readonly memo = new SubresourceMemo();

  private readonly single: boolean;
  readonly concurrency: number;

  constructor(private readonly options: ChromiumOptions) {
    this.single = options.singleProcess ?? Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
    this.concurrency = this.single ? 1 : options.concurrency;
  }

  /** The browser process ids alive now (tests check none is left behind). */
  pids(): number[] {
    return [...this.live].flatMap((s) => (s.pid ? [s.pid] : []));
  }

  async render(request: RenderRequest): Promise<RenderOutput> {
    if (this.closed) throw new RenderError('closed', 'the renderer is closed');
    await this.acquire();
    try {
      try {
        return await this.attempt(request, 1);
      } catch (err) {
        // A crash (the browser or its tab went away) may be the browser's, not the page's: once more on a
        // fresh one. A hang is the page's own (it held its renderer for the whole timeout): trying again
        // cost another --render-timeout-ms for the same outcome (bench:crawl's /hang page: 2 × 20 s).
        if (!(err instanceof RenderError) || err.failure !== 'crash' || this.closed) throw err;
        this.stats.retries++;
        this.options.logger?.warn('render failed; retrying the page once on a fresh browser context', { url: request.url, failure: err.failure });
        return await this.attempt(request, 2);
      }
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }

  private async attempt(request: RenderRequest, attempt: number): Promise<RenderOutput> {
    const host = new URL(request.url).host;
    const traffic = this.traffic(request);
    const slot = await this.currentSlot(host, traffic);
    slot.active++;
    slot.served++;
    let lease: ContextLease | undefined;
    let rendered = false;
    try {
      // A retry after a crash starts from a fresh context: the failed one was closed.
      lease = await Promise.race([slot.contexts.lease(host, traffic), slot.gone]);
      const session = this.session(lease, request, attempt, traffic);
      // A page's actions have their own time beside the cap: each ACTION_MS at most, 2 minutes in all.
      const cap = this.options.timeoutMs + Math.min((request.actions?.length ?? 0) * ACTION_MS, ACTIONS_MS);
      const output = await timeout(Promise.race([session, slot.gone]), cap, () => {
        this.stats.hangs++;
        slot.dead = true;
        return new RenderError('hang', `the page did not finish rendering within ${cap} ms (render-timeout-ms, and its actions' time)`);
      });
      rendered = true;
      return output;
    } catch (err) {
      if (err instanceof RenderError) {
        if (err.failure === 'crash') this.stats.crashes++;
        // A hang seen early (a script holding the renderer): the browser goes, as at the cap.
        if (err.failure === 'hang' && !slot.dead) {
          this.stats.hangs++;
          slot.dead = true;
        }
        throw err;
      }
      throw new RenderError('navigation', `render failed: ${errorMessage(err)}`, { cause: err });
    } finally {
      // Requests of the page still holding its host's turn let it go: the page is done with.
      traffic.ended = true;
      for (const letGo of [...traffic.holding.values()]) letGo();
      slot.active--;
      if (lease && !slot.dead) await timeout(lease.release(rendered), CLOSE_GRACE_MS, () => new Error('close')).catch(() => (slot.dead = true));
      if ((slot.dead || slot.served >= this.options.recycleAfter) && slot.active === 0) this.retire(slot);
    }
  }

  /** The browser for the next page: the current one, or a fresh one when it is dead or has served its share. */
  private async currentSlot(host: string, sink: PageSink): Promise<Slot> {
    const slot = this.slot;
    if (slot && !slot.contexts.serves(host)) slot.dead = true;
    if (slot && !slot.dead && slot.served < this.options.recycleAfter) return slot;
    if (slot && slot.active === 0) this.retire(slot);
    this.launching ??= this.launch(host, sink).finally(() => (this.launching = undefined));
    return this.launching;
  }

  /** A browser; in single-process mode, for `host`, its guard proxy first checking with `sink`. */
  private async launch(host: string, sink: PageSink): Promise<Slot> {
    this.binary ??= this.options.binary ? Promise.resolve(this.options.binary) : findBrowser();
    const binary = await this.binary;
    const chromium = await loadDriver();
    sweepStaleProfiles();
    const profile = mkdtempSync(join(tmpdir(), `${PROFILE_PREFIX}${process.pid}-`));
    // In single-process mode the one context's guard proxy is the browser's, given at launch.
    const holder = { sink };
    const soleProxy = this.single ? sinkProxy(sink, () => holder.sink) : undefined;
    let browser: Browser | undefined;
    let opened: Page[];
    try {
      // Chromium sends loopback straight out unless told otherwise: `<-loopback>` sends it to the proxy too.
      const proxy = soleProxy ? [`--proxy-server=http://${await soleProxy.listen()}`, '--proxy-bypass-list=<-loopback>'] : [];
      // A profile directory named after this process (a killed crawler's is swept by the next one).
      // Pages render in contexts opened beside the default one, one per host, or in single-process
      // mode in the default one, the only context there can be.
      browser = await chromium.launch({
        executablePath: binary.path,
        headless: 'shell',
        args: [...launchArgs(this.options.memoryMb, this.single), ...proxy],
        ignoreDefaultArgs: DRIVER_DEFAULTS_REFUSED,
        userDataDir: profile,
        defaultViewport: VIEWPORT,
        pipe: true,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 60_000,
      });
      opened = await browser.pages();
      // No download in any context (the default one included: single-process mode renders there).
      const session = await browser.target().createCDPSession();
      await session.send('Browser.setDownloadBehavior', { behavior: 'deny' });
      await session.detach();
    } catch (err) {
      await browser?.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
      await soleProxy?.close();
      throw new RenderError('launch', `Chromium at ${binary.path} did not start: ${errorMessage(err)}`, { cause: err });
    }
    this.stats.launches++;
    let onGone!: (err: RenderError) => void;
    const gone = new Promise<never>((_, reject) => (onGone = reject));
    gone.catch(() => undefined);
    const started = browser;
    const contexts: ContextSource = soleProxy
      ? new SoleContext(started.defaultBrowserContext(), soleProxy, holder, host, { pages: opened, end: () => started.close() })
      : new HostContexts((proxy) =>
          started.createBrowserContext({ proxyServer: `http://${proxy}`, proxyBypassList: ['<-loopback>'], downloadBehavior: { policy: 'deny' } }),
        );
    const slot: Slot = { browser: started, pid: started.process()?.pid ?? browserPid(profile), profile, served: 0, active: 0, dead: false, contexts, gone };
    started.once('disconnected', () => {
      if (!slot.dead && !contexts.ended) this.options.logger?.warn('the browser went away; a fresh one starts for the next page', { pid: slot.pid });
      slot.dead = true;
      onGone(new RenderError('crash', 'the browser process exited while rendering'));
    });
    if (this.live.size === 0) process.once('exit', this.onExit);
    this.live.add(slot);
    this.slot = slot;
    if (this.closed) {
      this.retire(slot);
      throw new RenderError('closed', 'the renderer was closed while the browser started');
    }
    return slot;
  }

  /** Closes a browser (killed if it does not close in time) and removes its profile. */
  private retire(slot: Slot): void {
    if (!this.live.has(slot)) return;
    this.live.delete(slot);
    if (this.slot === slot) this.slot = undefined;
    if (this.live.size === 0) process.removeListener('exit', this.onExit);
    slot.dead = true;
    const pid = slot.pid;
    // The driver's close returns once the process has exited; one that does not close in time is killed.
    const work = timeout(slot.browser.close(), CLOSE_GRACE_MS, () => new Error('close timed out'))
      .catch(async () => {
        if (!pid) return;
        kill(pid);
        await timeout(exited(pid), CLOSE_GRACE_MS, () => new Error('exit timed out'));
      })
      .catch(() => undefined)
      .then(() => slot.contexts.closeProxies())
      .catch(() => undefined)
      .finally(() => {
        rmSync(slot.profile, { recursive: true, force: true });
        this.retiring.delete(work);
      });
    this.retiring.add(work);
  }

  /** On process exit without close(): kill the browsers and remove their profiles synchronously. */
  private killAll(): void {
    for (const slot of this.live) {
      if (slot.pid) kill(slot.pid);
      rmSync(slot.profile, { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.launching?.catch(() => undefined);
    for (const slot of [...this.live]) this.retire(slot);
    await Promise.all([...this.retiring]);
  }

  /** One attempt at one page in its host's browser context. */
  private async session(lease: ContextLease, request: RenderRequest, attempt: number, traffic: Traffic): Promise<RenderOutput> {
    const started = performance.now();
    const page = await lease.context.newPage();
    await page.setUserAgent(this.options.userAgent);
    let crashes = 0;
    // puppeteer says a page crashed with its 'error' event.
    const crashed = new Promise<never>((_, reject) =>
      page.once('error', () => {
        crashes++;
        reject(new RenderError('crash', 'the page crashed'));
      }),
    );
    crashed.catch(() => undefined);
    // A call the page's crash cut short may fail before the crash event is seen: the driver says the target crashed or closed.
    const asCrash = (err: unknown) =>
      crashes > 0 || /target crashed|target closed|page crashed/i.test(errorMessage(err)) ? new RenderError('crash', 'the page crashed', { cause: err }) : err;
    const watch = watchResponsive(page);
    const run = async (): Promise<RenderOutput> => {
      await guardPage(page, request, traffic, this.memo);
      await page.evaluateOnNewDocument(MUTATION_CLOCK);
      // The user's session for this host only: its context is the host's own.
      if (request.cookies?.length)
        await page.setCookie(
          ...request.cookies.map(({ name, value, domain, path, secure, httpOnly }) => ({ name, value, domain, path: path ?? '/', secure, httpOnly })),
        );
      await page.goto(request.url, { waitUntil: 'domcontentloaded', timeout: this.options.timeoutMs });
      // The settle wait ends well inside the hard cap, so a page that never goes idle still yields its DOM.
      const left = this.options.timeoutMs - (performance.now() - started) - SETTLE_MARGIN_MS;
      const settled = await quiet(page, Math.max(1, Math.min(this.options.settleMs, left)));
      let shot: Buffer | undefined;
      const actions = request.actions?.length ? await runActions(page, request.actions, (s) => (shot = s)) : undefined;
      const html = await page.content();
      const measured = await page.evaluate(() => {
        const hrefs = new Set(Array.from(document.querySelectorAll('a[href]'), (a) => a.getAttribute('href') ?? ''));
        hrefs.delete('');
        return { textChars: (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim().length, links: hrefs.size };
      });
      const screenshot = request.screenshot ? await this.screenshot(page) : shot;
      return {
        html,
        durationMs: Math.round(performance.now() - started),
        settled,
        requests: traffic.policy.requests + lease.proxied(),
        blocked: traffic.blocked,
        textChars: measured.textChars,
        links: measured.links,
        navigations: traffic.navigations,
        throttled: traffic.throttled,
        attempts: attempt,
        screenshot,
        ...(actions ? { actions } : {}),
      };
    };
    return Promise.race([
      run().catch((err: unknown) => {
        throw asCrash(err);
      }),
      crashed,
      watch.hung,
    ]).finally(() => watch.stop());
  }

  private async screenshot(page: Page): Promise<Buffer> {
    const height = await page.evaluate(() => Math.max(document.documentElement.scrollHeight, document.body?.scrollHeight ?? 0));
    const clip = { x: 0, y: 0, width: VIEWPORT.width, height: Math.max(1, Math.min(height, this.options.screenshotMaxHeight ?? 10_000)) };
    return Buffer.from(await page.screenshot({ type: 'png', clip, captureBeyondViewport: true }));
  }

  /** One attempt's request policy, and what it and the context's guard proxy counted. */
  private traffic(request: RenderRequest): Traffic {
    const policy = new RequestPolicy(
      { allowPrivateNetwork: this.options.allowPrivateNetwork, maxRequests: this.options.maxRequests, resolver: this.options.resolver },
      new URL(request.url).host,
      request.robotsAllows,
    );
    const blocked: Partial<Record<BlockReason, number>> = {};
    const block = (reason: BlockReason) => (blocked[reason] = (blocked[reason] ?? 0) + 1);
    return { policy, blocked, block, navigations: [], holding: new Map() };
  }
}
