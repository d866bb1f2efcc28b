// Group commit: the commits of pages processed around the same time go to the store together (one
// SQLite transaction instead of one each). Each caller still gets its own answer — the url ids its
// commit inserted — once the group is stored; a group that fails is retried commit by commit, so
// one bad commit fails alone.
import type { CrawlStore, FetchCommit } from '../../ports/index.js';

export interface GroupCommitOptions {
  /** A group is stored as soon as it holds this many commits. */
  maxBatch: number;
  /** …or this long after its first commit arrived (0: at once, no grouping). */
  maxDelayMs: number;
}

interface Waiting {
  commit: FetchCommit;
  resolve: (inserted: string[]) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private waiting: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Groups stored, and commits in them (for the run's figures). */
  groups = 0;
  commits = 0;

  constructor(
    private readonly store: Pick<CrawlStore, 'commitFetch' | 'commitFetches'>,
    private readonly options: GroupCommitOptions,
  ) {}

  /** Stores the commit with its group; resolves to the url ids it inserted. */
  commit(commit: FetchCommit): Promise<string[]> {
    const done = new Promise<string[]>((resolve, reject) => this.waiting.push({ commit, resolve, reject }));
    if (this.options.maxDelayMs <= 0 || this.waiting.length >= this.options.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.maxDelayMs);
    return done;
  }

  /** Stores what is waiting now. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const group = this.waiting;
    this.waiting = [];
    if (group.length === 0) return;
    this.groups++;
    this.commits += group.length;
    let results: string[][];
    try {
      results = await this.store.commitFetches(group.map((w) => w.commit));
    } catch {
      // Something in the group failed and nothing of it was stored: each commit on its own, so only the bad one fails.
      for (const w of group) await this.store.commitFetch(w.commit).then(w.resolve, w.reject);
      return;
    }
    group.forEach((w, i) => w.resolve(results[i]!));
  }
}
