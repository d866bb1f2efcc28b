import type { ChangeStore } from '../ports/index.js';
import { textDiff, type DiffPart } from './text-diff.js';

/** The diff of a page a run changed (undefined when it did not): `inlineDiff` or a `DiffThread`'s. */
export type DiffFn = (runId: number, urlId: string) => Promise<DiffPart[] | undefined>;

/** Reads the texts and diffs them on the calling thread (a Lambda answers one request at a time). */
export const inlineDiff =
  (changes: ChangeStore): DiffFn =>
  async (runId, urlId) => {
    const texts = await changes.changeTexts(runId, urlId);
    return texts && textDiff(texts.before, texts.after);
  };

/** Diffs kept: a diff is at most a few hundred KiB (its long parts are capped). */
const CACHED_DIFFS = 32;

/**
 * The word diffs of changed pages, each computed once: the latest ones are kept (most recently
 * asked for first), and requests for a diff being computed share it.
 */
export class ChangeDiffs {
  private readonly cache = new Map<string, Promise<DiffPart[] | undefined>>();

  constructor(private readonly compute: DiffFn) {}

  /** The diff of a page a run changed; undefined when the run did not change it. */
  diff(runId: number, urlId: string): Promise<DiffPart[] | undefined> {
    const key = `${runId} ${urlId}`;
    const kept = this.cache.get(key);
    if (kept) {
      this.cache.delete(key);
      this.cache.set(key, kept);
      return kept;
    }
    const made = this.compute(runId, urlId);
    // A failure is not kept: the next request tries again.
    made.catch(() => this.cache.delete(key));
    this.cache.set(key, made);
    if (this.cache.size > CACHED_DIFFS) this.cache.delete(this.cache.keys().next().value!);
    return made;
  }
}
