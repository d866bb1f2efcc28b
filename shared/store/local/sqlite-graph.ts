import type { Db } from './sqlite-types.js';
import type { GraphStore, LinkView, RankedPage, SelectionRecord, UnfetchedUrl } from '../../ports/index.js';
import { CURRENT_EDGES, rowToEdge } from './sqlite-rows.js';
import { CompactGraph } from '../../graph/compact-graph.js';
import type { RankPoint } from '../../changes/page-change.js';
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

  /**
   * PageRank, inlinks and linking hosts of every stored page, in memory that does not grow with
   * the link rows: pages and links are read row by row into a compact graph (numbered nodes, links
   * in typed arrays). Reading every link row as an object first held ~250 bytes of heap a link:
   * bench:memory's 100,000 pages (500,000 links) peaked at 416 MiB at the end of the run.
   */
  async computeRanks(runId: number, now = Date.now()): Promise<number> {
    const graph = new CompactGraph();
    const hostNumbers = new Map<string, number>();
    const hostOf: number[] = [];
    for (const p of this.db.prepare('SELECT url_id, host FROM pages WHERE content_hash IS NOT NULL').iterate() as Iterable<{ url_id: string; host: string }>) {
      graph.node(p.url_id);
      let h = hostNumbers.get(p.host);
      if (h === undefined) hostNumbers.set(p.host, (h = hostNumbers.size));
      hostOf.push(h);
    }
    const links = this.db
      .prepare(`SELECT e.from_id AS f, e.to_page_id AS t FROM ${CURRENT_EDGES} WHERE e.to_page_id IS NOT NULL AND e.to_page_id != e.from_id`)
      .iterate() as Iterable<{ f: string; t: string }>;
    for (const l of links) {
      const f = graph.indexOf(l.f);
      const t = graph.indexOf(l.t);
      if (f !== undefined && t !== undefined) graph.link(f, t);
    }
    // A page links another once, whatever its rows (two addresses of one page, two anchors).
    graph.dedupe();
    const ranks = graph.pageRank();
    const { inlinks, hosts } = graph.inlinks(hostOf, hostNumbers.size);
    const before = previousRanks(this.db, graph);
    const insert = this.db.prepare('INSERT INTO ranks (url_id, run_id, inlinks, hosts, pagerank) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM ranks').run();
      for (let i = 0; i < graph.size; i++) insert.run(graph.ids[i], runId, inlinks[i], hosts[i], ranks[i]);
      recordRankShifts(this.db, runId, now, before);
    })();
    return graph.size;
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

/** The ranks the run replaces, of the graph's pages, by page id. */
function previousRanks(db: Db, graph: CompactGraph): (urlId: string) => (RankPoint & { runId: number }) | undefined {
  const runIds = new Float64Array(graph.size).fill(NaN);
  const inlinks = new Int32Array(graph.size);
  const pageranks = new Float64Array(graph.size);
  const rows = db.prepare('SELECT url_id, run_id, inlinks, pagerank FROM ranks').iterate() as Iterable<{
    url_id: string;
    run_id: number;
    inlinks: number;
    pagerank: number;
  }>;
  for (const r of rows) {
    const i = graph.indexOf(r.url_id);
    if (i === undefined) continue;
    runIds[i] = r.run_id;
    inlinks[i] = r.inlinks;
    pageranks[i] = r.pagerank;
  }
  return (urlId) => {
    const i = graph.indexOf(urlId);
    return i === undefined || Number.isNaN(runIds[i]) ? undefined : { runId: runIds[i]!, inlinks: inlinks[i]!, pagerank: pageranks[i]! };
  };
}
