import { enrichPage, enrichWork, type EnrichDeps } from '../stages/enrich-stage.js';

/**
 * Summarize and Index beside a running crawl: stored pages are offered as they commit and enriched
 * `concurrency` at a time without holding up the crawl. A bounded backlog keeps memory flat: a page
 * offered while it is full is left to the sweep after the crawl (`enrichAll`), which also retries failures.
 */
export class InlineEnricher {
  private readonly backlog: string[] = [];
  private readonly running = new Set<Promise<void>>();
  private idle: Array<() => void> = [];
  enriched = 0;
  failed = 0;
  deferred = 0;

  constructor(
    private readonly deps: EnrichDeps,
    private readonly concurrency: number,
    private readonly maxBacklog = 256,
  ) {}

  /** A page was stored: enrich it soon. */
  offer(urlId: string): void {
    if (this.backlog.length >= this.maxBacklog) {
      this.deferred++;
      return;
    }
    this.backlog.push(urlId);
    this.pump();
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.backlog.length) {
      const id = this.backlog.shift()!;
      const job: Promise<void> = this.one(id).finally(() => {
        this.running.delete(job);
        this.pump();
        if (this.running.size === 0 && this.backlog.length === 0) for (const r of this.idle.splice(0)) r();
      });
      this.running.add(job);
    }
  }

  private async one(urlId: string): Promise<void> {
    try {
      const c = await this.deps.enrich.enrichCandidate(urlId);
      const work = c && enrichWork(c, this.deps.providers, 'new');
      if (!c || !work) return;
      const outcome = await enrichPage(this.deps, c, work);
      if (outcome.status === 'enriched') this.enriched++;
      else this.failed++;
    } catch {
      // A store error here leaves the page to the sweep after the crawl.
      this.failed++;
    }
  }

  /** Waits until every offered page is done. */
  drain(): Promise<void> {
    if (this.running.size === 0 && this.backlog.length === 0) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }
}
