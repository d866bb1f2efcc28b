/**
 * Changes between runs on the embedded store: captured on the writer's connection as each fetch
 * commits (before its writes replace what the page was), completed at the run's end, and read.
 */
import type { Db, Statement } from './sqlite-types.js';
import { underPaths } from '../../changes/monitor.js';
import { changeRecordOf, contentChange, rankShift, type PreviousState, type RankPoint } from '../../changes/page-change.js';
import {
  CHANGE_KINDS,
  CONTENT_KINDS,
  type ChangeKind,
  type ChangeQuery,
  type ChangeRecord,
  type ChangeStore,
  type ChangeTexts,
} from '../../ports/change-store.js';
import type { FetchCommit } from '../../ports/index.js';
import { changeCounts, rowToExtract } from './sqlite-rows.js';

const CONTENT_IN = `(${CONTENT_KINDS.map((k) => `'${k}'`).join(', ')})`;
const LINK_KINDS_IN = "('newly-linked', 'orphaned')";

const INSERT_CHANGE = `INSERT OR REPLACE INTO changes (run_id, url_id, kind, url, at, previous_run_id, title, detail)
  VALUES (@runId, @urlId, @kind, @url, @at, @previousRunId, @title, @detail)`;

/** The part of a change record kept as JSON. */
function detailOf(c: ChangeRecord): string | null {
  const { measure, removedBy, linkedFrom, unlinkedFrom, rank } = c;
  const detail = Object.fromEntries(Object.entries({ measure, removedBy, linkedFrom, unlinkedFrom, rank }).filter(([, v]) => v !== undefined));
  return Object.keys(detail).length ? JSON.stringify(detail) : null;
}

export function changeParams(c: ChangeRecord): Record<string, unknown> {
  return { ...c, previousRunId: c.previousRunId ?? null, title: c.title ?? null, detail: detailOf(c) };
}

function rowToChange(r: Record<string, unknown>): ChangeRecord {
  const detail = r.detail ? (JSON.parse(r.detail as string) as Partial<ChangeRecord>) : {};
  return {
    runId: r.run_id as number,
    urlId: r.url_id as string,
    url: r.url as string,
    kind: r.kind as ChangeKind,
    at: r.at as number,
    ...(r.previous_run_id !== null ? { previousRunId: r.previous_run_id as number } : {}),
    ...(r.title !== null ? { title: r.title as string } : {}),
    ...detail,
  };
}

/** The writer's side: one capture per commit, inside the commit's transaction and before its writes. */
export class SqliteChangeCapture {
  private readonly earlier = new Map<number, boolean>();
  private readonly s: Record<'earlierRun' | 'previous' | 'extract' | 'outlinks' | 'insert' | 'texts' | 'link', Statement>;

  constructor(db: Db) {
    this.s = {
      earlierRun: db.prepare('SELECT 1 FROM runs WHERE id < ? LIMIT 1'),
      previous: db.prepare(`SELECT p.run_id, p.content_hash, p.title, x.text_hash,
        (SELECT c.kind FROM changes c WHERE c.url_id = p.url_id AND c.kind IN ${CONTENT_IN} ORDER BY c.run_id DESC LIMIT 1) AS last_kind
        FROM pages p LEFT JOIN extracts x ON x.url_id = p.url_id WHERE p.url_id = ?`),
      extract: db.prepare('SELECT * FROM extracts WHERE url_id = ?'),
      outlinks: db.prepare('SELECT to_id, to_url FROM edges WHERE from_id = ? AND snapshot = ? AND to_id != from_id'),
      insert: db.prepare(INSERT_CHANGE),
      texts: db.prepare('INSERT OR REPLACE INTO change_texts (run_id, url_id, before, after) VALUES (?, ?, ?, ?)'),
      link: db.prepare('INSERT OR REPLACE INTO link_changes (run_id, to_id, from_id, to_url, added) VALUES (?, ?, ?, ?, ?)'),
    };
  }

  /** A data directory's first run has nothing to compare with: it records no changes. */
  private hasEarlierRun(runId: number): boolean {
    let known = this.earlier.get(runId);
    if (known === undefined) this.earlier.set(runId, (known = this.s.earlierRun.get(runId) !== undefined));
    return known;
  }

  capture(c: FetchCommit): void {
    if (!c.fetch || c.fetch.status === undefined || !this.hasEarlierRun(c.runId)) return;
    const row = this.s.previous.get(c.urlId) as Record<string, string | number | null> | undefined;
    const previous: PreviousState | undefined = row && {
      runId: row.run_id as number,
      contentHash: (row.content_hash as string | null) ?? undefined,
      textHash: (row.text_hash as string | null) ?? undefined,
      ...(row.last_kind ? { lastKind: row.last_kind as ChangeKind } : {}),
    };
    const changedText = row && c.extract && row.text_hash !== null && row.text_hash !== c.extract.textHash;
    if (previous && changedText) previous.extract = rowToExtract(this.s.extract.get(c.urlId) as Record<string, unknown>);
    const change = contentChange(previous, c);
    if (!change) return;
    const title = c.extract?.title ?? c.page?.title ?? (row?.title as string | null) ?? undefined;
    const record = changeRecordOf({ ...c, fetch: c.fetch }, change, previous, title);
    this.s.insert.run(changeParams(record));
    if (change.measure) this.s.texts.run(c.runId, c.urlId, previous!.extract!.markdown, c.extract!.markdown);
    this.links(c, previous, change.kind);
  }

  /** The links a known page gained and lost with its new snapshot (all of them, when it is removed). */
  private links(c: FetchCommit, previous: PreviousState | undefined, kind: ChangeKind): void {
    if (!previous?.contentHash || kind === 'new') return;
    const removed = kind === 'removed';
    if (!removed && (!c.page?.contentHash || c.page.contentHash === previous.contentHash)) return;
    const before = new Map((this.s.outlinks.all(c.urlId, previous.contentHash) as Array<{ to_id: string; to_url: string }>).map((r) => [r.to_id, r.to_url]));
    const after = new Map(removed ? [] : (c.edges ?? []).filter((e) => e.toId !== c.urlId).map((e) => [e.toId, e.toUrl]));
    for (const [toId, toUrl] of after) if (!before.has(toId)) this.s.link.run(c.runId, toId, c.urlId, toUrl, 1);
    for (const [toId, toUrl] of before) if (!after.has(toId)) this.s.link.run(c.runId, toId, c.urlId, toUrl, 0);
  }
}

/**
 * Rank shifts between the ranks a run replaces (`before`, by page id) and its own (see
 * `rankShift`); the ranks are read row by row and the shifts written after.
 */
export function recordRankShifts(db: Db, runId: number, now: number, before: (urlId: string) => (RankPoint & { runId: number }) | undefined): void {
  const insert = db.prepare(INSERT_CHANGE);
  db.prepare("DELETE FROM changes WHERE run_id = ? AND kind = 'rank-shift'").run(runId);
  const rows = db
    .prepare(
      'SELECT r.url_id, r.inlinks, r.pagerank, p.url, coalesce(x.title, p.title) AS title FROM ranks r JOIN pages p USING (url_id) LEFT JOIN extracts x USING (url_id)',
    )
    .iterate() as Iterable<{ url_id: string; inlinks: number; pagerank: number; url: string; title: string | null }>;
  const shifts: Array<Parameters<typeof changeParams>[0]> = [];
  for (const r of rows) {
    const old = before(r.url_id);
    if (!old || old.runId >= runId || !rankShift(old, r)) continue;
    const rank = { inlinksBefore: old.inlinks, inlinksAfter: r.inlinks, pagerankBefore: old.pagerank, pagerankAfter: r.pagerank };
    shifts.push({ runId, urlId: r.url_id, url: r.url, kind: 'rank-shift', at: now, previousRunId: old.runId, title: r.title ?? undefined, rank });
  }
  for (const shift of shifts) insert.run(changeParams(shift));
}

/** A source page whose latest content change says it is gone no longer links anything. */
const LIVE_SOURCE = `NOT EXISTS (SELECT 1 FROM changes r WHERE r.url_id = src.url_id AND r.kind = 'removed' AND r.run_id >= src.run_id)`;

/** Reading changes, and completing a run's link kinds at its end. */
export class SqliteChanges implements ChangeStore {
  constructor(private readonly db: Db) {}

  async finishChanges(runId: number, now: number): Promise<Partial<Record<ChangeKind, number>>> {
    const db = this.db;
    const insert = db.prepare(INSERT_CHANGE);
    const gained = db
      .prepare(
        `SELECT l.to_id, l.to_url, group_concat(src.url, char(10)) AS froms FROM link_changes l JOIN pages src ON src.url_id = l.from_id
         WHERE l.run_id = ? AND l.added = 1 AND EXISTS (SELECT 1 FROM fetches f WHERE f.url_id = l.to_id AND f.run_id < ?) GROUP BY l.to_id`,
      )
      .all(runId, runId) as Array<{ to_id: string; to_url: string; froms: string }>;
    const lost = db
      .prepare(
        `SELECT l.to_id, l.to_url, group_concat(src.url, char(10)) AS froms FROM link_changes l JOIN pages src ON src.url_id = l.from_id
         WHERE l.run_id = ? AND l.added = 0 GROUP BY l.to_id`,
      )
      .all(runId) as Array<{ to_id: string; to_url: string; froms: string }>;
    const stillLinked = db.prepare(
      `SELECT 1 FROM edges e JOIN pages src ON src.url_id = e.from_id AND src.content_hash = e.snapshot
       WHERE (e.to_id = @id OR e.to_page_id = @id) AND e.from_id != @id AND ${LIVE_SOURCE} LIMIT 1`,
    );
    const contentKind = db.prepare(`SELECT kind FROM changes WHERE run_id = ? AND url_id = ? AND kind IN ${CONTENT_IN}`);
    const page = db.prepare('SELECT p.run_id, coalesce(x.title, p.title) AS title FROM pages p LEFT JOIN extracts x USING (url_id) WHERE p.url_id = ?');
    const lastSeen = db.prepare('SELECT max(run_id) AS run FROM fetches WHERE url_id = ? AND run_id < ?');
    db.transaction(() => {
      db.prepare(`DELETE FROM changes WHERE run_id = ? AND (kind IN ${LINK_KINDS_IN} OR (kind = 'removed' AND detail LIKE '%"unlinked"%'))`).run(runId);
      for (const g of gained) {
        const info = page.get(g.to_id) as { title: string | null } | undefined;
        const previousRunId = (lastSeen.get(g.to_id, runId) as { run: number | null }).run ?? undefined;
        insert.run(
          changeParams({
            runId,
            urlId: g.to_id,
            url: g.to_url,
            kind: 'newly-linked',
            at: now,
            previousRunId,
            title: info?.title ?? undefined,
            linkedFrom: g.froms.split('\n').sort(),
          }),
        );
      }
      for (const l of lost) {
        if (stillLinked.get({ id: l.to_id })) continue;
        const kind = (contentKind.get(runId, l.to_id) as { kind: ChangeKind } | undefined)?.kind;
        const info = page.get(l.to_id) as { run_id: number; title: string | null } | undefined;
        if (kind === 'removed' || (!kind && !info)) continue;
        const previousRunId = (lastSeen.get(l.to_id, runId) as { run: number | null }).run ?? undefined;
        const base = {
          runId,
          urlId: l.to_id,
          url: l.to_url,
          at: now,
          previousRunId,
          title: info?.title ?? undefined,
          unlinkedFrom: l.froms.split('\n').sort(),
        };
        // Still served (fetched this run, through a sitemap or a link from outside the crawl): orphaned. Not reached at all: gone.
        insert.run(changeParams(kind ? { ...base, kind: 'orphaned' } : { ...base, kind: 'removed', removedBy: 'unlinked' }));
      }
    })();
    return changeCounts(db, runId).changes ?? {};
  }

  async changes(query: ChangeQuery): Promise<ChangeRecord[]> {
    const kinds = query.kinds?.length ? query.kinds : CHANGE_KINDS.filter((k) => k !== 'unchanged');
    const where = [`c.kind IN (${kinds.map(() => '?').join(', ')})`];
    const params: unknown[] = [...kinds];
    if (query.since !== undefined) {
      where.push('c.run_id IN (SELECT id FROM runs WHERE started_at >= ?)');
      params.push(query.since);
    } else {
      const runId = query.runId ?? (this.db.prepare('SELECT max(run_id) AS id FROM changes').get() as { id: number | null }).id;
      if (runId === null) return [];
      where.push('c.run_id = ?');
      params.push(runId);
    }
    const rows = this.db
      .prepare(`SELECT * FROM changes c WHERE ${where.join(' AND ')} ORDER BY c.run_id, ${kindOrder('c.kind')}, c.url`)
      .all(...params) as Array<Record<string, unknown>>;
    const picked = rows.map(rowToChange).filter((c) => underPaths(c.url, query.paths ?? []));
    return query.limit === undefined ? picked : picked.slice(0, query.limit);
  }

  async changeTexts(runId: number, urlId: string): Promise<ChangeTexts | undefined> {
    return this.db.prepare('SELECT before, after FROM change_texts WHERE run_id = ? AND url_id = ?').get(runId, urlId) as ChangeTexts | undefined;
  }
}

/** The kinds in the order of CHANGE_KINDS, as an SQL expression. */
function kindOrder(column: string): string {
  return `CASE ${column} ${CHANGE_KINDS.map((k, i) => `WHEN '${k}' THEN ${i}`).join(' ')} END`;
}
