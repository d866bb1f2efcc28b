import type { Db } from './sqlite-types.js';
import type { GraphStore, LinkView, RankedPage, SelectionRecord, UnfetchedUrl } from '../ports/index.js';
import { CURRENT_EDGES, rowToEdge } from './sqlite-rows.js';
import { pageRank } from '../../graph/pagerank.js';
import { recordRankShifts } from './sqlite-changes.js';

/** Link graph queries on the embedded store. */
export class SqliteGraph implements GraphStore {
  constructor(private readonly db: Db) {}

  async outlinks(urlId: string): Promise<LinkView[]> {
    const rows = this.db.prepare(`SELECT e.*, src.url AS from_url FROM ${CURRENT_EDGES} WHERE e.from_id = ? ORDER BY e.section != 'body', e.to_url`).all(urlId);
    return (rows as Array<Record<string, unknown>>).map((r) => ({ ...rowToEdge(r), fromUrl: r.from_url as string }));
  }

  async inlinks(urlId: string): Promise<LinkView[]> {
    const rows = this.db
      .prepare(
        `SELECT e.*, src.url AS from_url FROM ${CURRENT_EDGES} WHERE (e.to_page_id = ? OR e.to_id = ?) AND e.from_id != ? ORDER BY e.section != 'body', src.url`,
      )
      .all(urlId, urlId, urlId);
    return (rows as Array<Record<string, unknown>>).map((r) => ({ ...rowToEdge(r), fromUrl: r.from_url as string }));
  }

  async computeRanks(runId: number, now = Date.now()): Promise<number> {
    const before = new Map(
      (
        this.db.prepare('SELECT url_id, run_id, inlinks, pagerank FROM ranks').all() as Array<{
          url_id: string;
          run_id: number;
          inlinks: number;
          pagerank: number;
        }>
      ).map((r) => [r.url_id, { runId: r.run_id, inlinks: r.inlinks, pagerank: r.pagerank }]),
    );
    const nodes = (this.db.prepare('SELECT url_id FROM pages WHERE content_hash IS NOT NULL').all() as Array<{ url_id: string }>).map((r) => r.url_id);
    const links = this.db
      .prepare(
        `SELECT DISTINCT e.from_id AS f, e.to_page_id AS t, src.host AS h FROM ${CURRENT_EDGES} WHERE e.to_page_id IS NOT NULL AND e.to_page_id != e.from_id`,
      )
      .all() as Array<{ f: string; t: string; h: string }>;
    const ranks = pageRank(
      nodes,
      links.map((l) => [l.f, l.t]),
    );
    const inlinks = new Map<string, { n: number; hosts: Set<string> }>();
    for (const l of links) {
      const entry = inlinks.get(l.t) ?? { n: 0, hosts: new Set<string>() };
      entry.n++;
      entry.hosts.add(l.h);
      inlinks.set(l.t, entry);
    }
    const insert = this.db.prepare('INSERT INTO ranks (url_id, run_id, inlinks, hosts, pagerank) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM ranks').run();
      for (const id of nodes) insert.run(id, runId, inlinks.get(id)?.n ?? 0, inlinks.get(id)?.hosts.size ?? 0, ranks.get(id) ?? 0);
      recordRankShifts(this.db, runId, now, before);
    })();
    return nodes.length;
  }

  async top(limit: number): Promise<RankedPage[]> {
    const rows = this.db
      .prepare(
        `SELECT r.url_id, p.url, coalesce(x.title, p.title) AS title, r.inlinks, r.hosts, r.pagerank FROM ranks r JOIN pages p ON p.url_id = r.url_id
      LEFT JOIN extracts x ON x.url_id = r.url_id ORDER BY r.pagerank DESC, r.inlinks DESC, p.url LIMIT ?`,
      )
      .all(limit) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      urlId: r.url_id as string,
      url: r.url as string,
      title: (r.title as string | null) ?? undefined,
      inlinks: r.inlinks as number,
      hosts: r.hosts as number,
      pagerank: r.pagerank as number,
    }));
  }

  async unfetched(limit: number): Promise<UnfetchedUrl[]> {
    const rows = this.db
      .prepare(
        `SELECT e.to_url AS url, count(DISTINCT e.from_id) AS inlinks, count(DISTINCT src.host) AS hosts FROM ${CURRENT_EDGES}
      WHERE e.to_page_id IS NULL AND NOT EXISTS (SELECT 1 FROM fetches f WHERE f.url_id = e.to_id)
      GROUP BY e.to_id ORDER BY hosts DESC, inlinks DESC, url LIMIT ?`,
      )
      .all(limit) as UnfetchedUrl[];
    return rows;
  }

  async saveSelections(selections: SelectionRecord[]): Promise<void> {
    const put = this.db.prepare('INSERT OR REPLACE INTO selections (run_id, home, record) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const s of selections) put.run(s.runId, s.home, JSON.stringify(s));
    })();
  }

  async selections(runId: number): Promise<SelectionRecord[]> {
    const rows = this.db.prepare('SELECT record FROM selections WHERE run_id = ? ORDER BY home').all(runId) as Array<{ record: string }>;
    return rows.map((r) => JSON.parse(r.record) as SelectionRecord);
  }
}
