import type { BrowserContext } from 'playwright-core';
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
export class HostContexts {
  private readonly byHost = new Map<string, Entry>();
  private readonly open = new Set<Entry>();
  private clock = 0;

  constructor(
    /** A fresh context whose traffic goes through the proxy at `proxy` (`host:port`). */
    private readonly create: (proxy: string) => Promise<BrowserContext>,
    private readonly limits = { kept: CONTEXTS_KEPT, pagesPerContext: PAGES_PER_CONTEXT },
  ) {}

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
    const before = leased.proxy.proxied;
    return {
      context: leased.context,
      reused,
      proxied: () => leased.proxy.proxied - before,
      release: async (keep) => {
        leased.busy = false;
        const kept = keep && this.byHost.get(host) === leased && leased.pages < this.limits.pagesPerContext;
        if (kept) {
          await Promise.all((await leased.context.pages()).map((p) => p.close()));
          return;
        }
        if (this.byHost.get(host) === leased) this.byHost.delete(host);
        await this.stop(leased, true);
      },
    };
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
    const proxy = new GuardProxy({
      guard: sink.policy.addressGuard,
      reach: async (url, tunnel) => (await entry.sink.policy.reach(url, tunnel))?.reason ?? null,
      onBlock: (reason) => entry.sink.block(reason),
    });
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
