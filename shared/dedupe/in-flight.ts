import { hammingDistance } from './simhash.js';

interface Entry {
  simhash: string;
  textHash: string;
  /** The page is a near- or text duplicate itself: never the original of another. */
  nearDuplicate: boolean;
  textDuplicate: boolean;
}

/** Duplicates of a page among the pages in flight, the earliest claimed first. */
export interface InFlightDuplicates {
  near?: { urlId: string; distance: number };
  text?: string;
}

/**
 * The pages whose extraction is made but not yet committed. The store answers duplicate lookups
 * only from what is committed, and pages are processed several at once off their host's path, so
 * a page and its near-duplicate processed together would miss each other: they are looked up here
 * too, in the order they reached this point (a page claims before its store lookups start and is
 * released once its commit ends, whatever the outcome). Bounded: past `max` entries the oldest is
 * forgotten (a leak guard; a crawl holds at most its processing queue and pending commits).
 */
export class ContentInFlight {
  private readonly pages = new Map<string, Entry>();

  constructor(private readonly max = 4096) {}

  get size(): number {
    return this.pages.size;
  }

  /** Registers the page (again, after a render) and returns what it duplicates among the pages claimed before it. */
  claim(urlId: string, simhash: string, textHash: string, maxDistance: number): InFlightDuplicates {
    this.pages.delete(urlId);
    const found: InFlightDuplicates = {};
    for (const [id, e] of this.pages) {
      if (!found.near && !e.nearDuplicate) {
        const distance = hammingDistance(simhash, e.simhash);
        if (distance <= maxDistance) found.near = { urlId: id, distance };
      }
      if (found.text === undefined && !e.textDuplicate && e.textHash === textHash) found.text = id;
      if (found.near && found.text !== undefined) break;
    }
    if (this.pages.size >= this.max) this.pages.delete(this.pages.keys().next().value!);
    this.pages.set(urlId, { simhash, textHash, nearDuplicate: found.near !== undefined, textDuplicate: found.text !== undefined });
    return found;
  }

  /** What the page turned out to be once the store was asked too. */
  mark(urlId: string, nearDuplicate: boolean, textDuplicate: boolean): void {
    const e = this.pages.get(urlId);
    if (e) Object.assign(e, { nearDuplicate, textDuplicate });
  }

  release(urlId: string): void {
    this.pages.delete(urlId);
  }
}
