import type { BrowserContext, Page } from 'puppeteer-core';
import { GuardProxy } from './guard-proxy.js';
import type { BlockReason } from './renderer.js';
import type { RequestPolicy } from './request-policy.js';

/** Hosts whose browser context is kept between their pages, per browser (the least recently used idle one goes first). */
export const CONTEXTS_KEPT = 8;
/** Pages one context serves before a fresh one: bounds what a host's cookies, storage and cache can grow to. */
export const PAGES_PER_CONTEXT = 50;

/** The page rendering in a context now: its proxy checks with this page's policy and counts refusals on it. */
export interface PageSink {
  policy: RequestPolicy;
  block: (reason: BlockReason) => void;
}

/** A context lent to one page. */
export interface ContextLease {
  context: BrowserContext;
  /** Whether the context served an earlier page of the host (its cache and cookies are warm). */
  reused: boolean;
  /** Connections and requests the context's proxy let out for this page. */
  proxied(): number;
  /** Gives the context back: kept for the host's next page when `keep` (its pages closed), else closed with its proxy. */
  release(keep: boolean): Promise<void>;
}

/** Where a browser's pages get their context: one per host (`HostContexts`), or the browser's only one (`SoleContext`). */
export interface ContextSource {
  /** Whether a page of `host` can have a context here (else the renderer starts a fresh browser). */
  serves(host: string): boolean;
  lease(host: string, sink: PageSink): Promise<ContextLease>;
  /** Closes the guard proxies (the contexts go with their browser). */
  closeProxies(): Promise<void>;
  /** Whether it ended its browser itself (the browser's going away is then no crash). */
  readonly ended: boolean;
}

/** A guard proxy that checks every connection with the page rendering behind it now (`sink()`). */
export function sinkProxy(first: PageSink, sink: () => PageSink): GuardProxy {
  return new GuardProxy({
    guard: first.policy.addressGuard,
    reach: async (url, tunnel) => (await sink().policy.reach(url, tunnel))?.reason ?? null,
    onBlock: (reason) => sink().block(reason),
  });
}

/** `context` lent to one page: what its proxy lets out from now on, and what giving it back does. */
function leaseOf(context: BrowserContext, proxy: GuardProxy, reused: boolean, release: ContextLease['release']): ContextLease {
  const before = proxy.proxied;
  return { context, reused, proxied: () => proxy.proxied - before, release };
}

interface Entry {
  context: BrowserContext;
  proxy: GuardProxy;
  sink: PageSink;
  busy: boolean;
  pages: number;
  lastUsed: number;
}

/**
 * One browser's contexts, one per host: a host's pages share a context, one page at a time, so the
 * second page of a site finds its scripts, styles and fonts in the context's cache instead of asking
 * the site again, as a visitor's browser would. Hosts never share a context (no cookie, storage or
 * cache crosses sites), a context that met a failure is closed, and a page of a host whose context
 * is busy gets a context of its own for that page alone. Each context has its own guard proxy,
 * which checks every connection with the policy of the page rendering in it now.
 */
export class HostContexts implements ContextSource {
  readonly ended = false;
  private readonly byHost = new Map<string, Entry>();
  private readonly open = new Set<Entry>();
  private clock = 0;

  constructor(
    /** A fresh context whose traffic goes through the proxy at `proxy` (`host:port`). */
    private readonly create: (proxy: string) => Promise<BrowserContext>,
    private readonly limits = { kept: CONTEXTS_KEPT, pagesPerContext: PAGES_PER_CONTEXT },
  ) {}

  serves(): boolean {
    return true;
  }

  async lease(host: string, sink: PageSink): Promise<ContextLease> {
    let entry = this.byHost.get(host);
    const reused = Boolean(entry && !entry.busy);
    if (entry && !entry.busy) entry.sink = sink;
    else {
      const shared = !entry && this.makeRoom();
      entry = await this.start(sink);
      if (shared) this.byHost.set(host, entry);
    }
    const leased = entry;
    leased.busy = true;
    leased.pages++;
    leased.lastUsed = ++this.clock;
    return leaseOf(leased.context, leased.proxy, reused, async (keep) => {
      leased.busy = false;
      const kept = keep && this.byHost.get(host) === leased && leased.pages < this.limits.pagesPerContext;
      if (kept) {
        await Promise.all((await leased.context.pages()).map((p) => p.close()));
        return;
      }
      if (this.byHost.get(host) === leased) this.byHost.delete(host);
      await this.stop(leased, true);
    });
  }

  /** Closes every context's proxy (the contexts go with their browser). */
  async closeProxies(): Promise<void> {
    const entries = [...this.open];
    this.byHost.clear();
    await Promise.all(entries.map((e) => this.stop(e, false)));
  }

  /** Whether a new host's context can be kept, closing the least recently used idle one if need be. */
  private makeRoom(): boolean {
    if (this.byHost.size < this.limits.kept) return true;
    let oldest: [string, Entry] | undefined;
    for (const kv of this.byHost) if (!kv[1].busy && (!oldest || kv[1].lastUsed < oldest[1].lastUsed)) oldest = kv;
    if (!oldest) return false;
    this.byHost.delete(oldest[0]);
    void this.stop(oldest[1], true).catch(() => undefined);
    return true;
  }

  private async start(sink: PageSink): Promise<Entry> {
    let entry!: Entry;
    const proxy = sinkProxy(sink, () => entry.sink);
    const address = await proxy.listen();
    try {
      entry = { context: await this.create(address), proxy, sink, busy: false, pages: 0, lastUsed: 0 };
    } catch (err) {
      await proxy.close();
      throw err;
    }
    this.open.add(entry);
    return entry;
  }

  private async stop(entry: Entry, closeContext: boolean): Promise<void> {
    if (!this.open.delete(entry)) return;
    try {
      if (closeContext) await entry.context.close();
    } finally {
      await entry.proxy.close();
    }
  }
}

/**
 * The one context of a browser in single-process mode, which Lambda needs: there Chromium supports
 * exactly one browser context, and opening a second kills the browser. Its guard proxy is the
 * browser's own, given at launch. It serves one host, one page at a time, as `HostContexts` does a
 * host's context; a page of another host, a page that failed or the context's 50th page ends the
 * browser, and the renderer starts a fresh one,
 * so no cookie, storage or cache of one host is there for the next.
 */
export class SoleContext implements ContextSource {
  ended = false;
  private pages = 0;
  private busy = false;
  /** The pages the context opened with (its first blank page): closing them would leave no window. */
  private readonly own: Set<Page>;

  constructor(
    private readonly context: BrowserContext,
    private readonly proxy: GuardProxy,
    /** The page the proxy checks with now: set at each lease. */
    private readonly holder: { sink: PageSink },
    private readonly host: string,
    /** The pages it opened with, and what ends it: the browser's default context closes with its browser only. */
    opened: { pages: Page[]; end: () => Promise<void> },
  ) {
    this.own = new Set(opened.pages);
    this.end = opened.end;
  }

  private readonly end: () => Promise<void>;

  serves(host: string): boolean {
    return host === this.host && !this.busy && this.pages < PAGES_PER_CONTEXT;
  }

  async lease(host: string, sink: PageSink): Promise<ContextLease> {
    if (!this.serves(host)) throw new Error(`the browser's one context serves ${this.host}, one page at a time; ${host} needs a browser of its own`);
    this.busy = true;
    this.holder.sink = sink;
    return leaseOf(this.context, this.proxy, this.pages++ > 0, async (keep) => {
      this.busy = false;
      if (keep && this.pages < PAGES_PER_CONTEXT) await Promise.all((await this.context.pages()).filter((p) => !this.own.has(p)).map((p) => p.close()));
      else {
        this.pages = PAGES_PER_CONTEXT;
        this.ended = true;
        await this.end();
      }
    });
  }

  async closeProxies(): Promise<void> {
    await this.proxy.close();
  }
}
