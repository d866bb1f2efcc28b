import type { Db } from './sqlite-types.js';
import { backfillSketches, SKETCHES_SQL } from './sqlite-sketches.js';

/**
 * Bumped whenever a table changes shape. An older data directory is migrated forward (`MIGRATIONS`)
 * when it is opened; a newer one is refused.
 */
export const SCHEMA_VERSION = 14;

/**
 * What changed between runs (v9): one row per URL, run and kind (the detail as JSON); the two
 * texts of each changed page, for its diff (a rowid table: see chunksSql); and the links pages
 * gained and lost during a run, which the run's end turns into the link kinds.
 */
const CHANGES_SQL = `
CREATE TABLE IF NOT EXISTS changes (
  run_id INTEGER NOT NULL,
  url_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  url TEXT NOT NULL,
  at INTEGER NOT NULL,
  previous_run_id INTEGER,
  title TEXT,
  detail TEXT,
  PRIMARY KEY (run_id, url_id, kind)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changes_url ON changes (url_id, run_id);
CREATE TABLE IF NOT EXISTS change_texts (
  run_id INTEGER NOT NULL,
  url_id TEXT NOT NULL,
  before TEXT NOT NULL,
  after TEXT NOT NULL,
  UNIQUE (run_id, url_id)
);
CREATE TABLE IF NOT EXISTS link_changes (
  run_id INTEGER NOT NULL,
  to_id TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_url TEXT NOT NULL,
  added INTEGER NOT NULL,
  PRIMARY KEY (run_id, to_id, from_id)
) WITHOUT ROWID;
`;

/** The Summarize and Index tables (v5). */
const SELECTIONS_SQL = `CREATE TABLE IF NOT EXISTS selections (
  run_id INTEGER NOT NULL,
  home TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (run_id, home)
) WITHOUT ROWID;`;

const ENRICH_SQL = `
CREATE TABLE IF NOT EXISTS enrichments (
  doc_id INTEGER PRIMARY KEY,
  url_id TEXT NOT NULL UNIQUE,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  title TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  summary TEXT NOT NULL,
  tags TEXT NOT NULL,
  language TEXT,
  published TEXT,
  summary_stamp TEXT NOT NULL,
  tags_stamp TEXT NOT NULL,
  embedding TEXT,
  updated_at INTEGER NOT NULL,
  listing REAL,
  page_fields TEXT,
  extracted TEXT
);
CREATE TABLE IF NOT EXISTS enrichment_tags (
  tag TEXT NOT NULL,
  doc_id INTEGER NOT NULL,
  PRIMARY KEY (tag, doc_id)
) WITHOUT ROWID;
-- Replacing a page's tags deletes by doc_id: without this index each write scans every tag (quadratic over a pass).
CREATE INDEX IF NOT EXISTS enrichment_tags_doc ON enrichment_tags (doc_id);
-- The enrichment latency histogram: enrichments written per bucket (ENRICH_LATENCY_BOUNDS_MS) and their total time.
CREATE TABLE IF NOT EXISTS enrich_latency (
  bucket INTEGER PRIMARY KEY,
  n INTEGER NOT NULL,
  ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS enrich_failures (
  url_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  stage TEXT NOT NULL,
  error TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  failed_at INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS search_text USING fts5(title, tags, summary, body, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS vectors (
  url_id TEXT PRIMARY KEY,
  model TEXT NOT NULL,
  dimension INTEGER NOT NULL,
  hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  host TEXT NOT NULL,
  language TEXT,
  published TEXT,
  tags TEXT NOT NULL
);
`;

/**
 * A chunk's text (~1–3 KB) is too large for a WITHOUT ROWID table, whose rows spill past ~1 KB
 * onto an overflow page of their own (schema 7 wrote a mostly empty 4 KB page per chunk: half of
 * a crawl's database and of its writes); in a rowid table they share leaf pages.
 */
const chunksSql = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
  url_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  id TEXT NOT NULL,
  position REAL NOT NULL,
  tokens INTEGER NOT NULL,
  text TEXT NOT NULL,
  prev_id TEXT,
  next_id TEXT,
  UNIQUE (url_id, seq)
);`;

/**
 * Raw bodies up to SMALL_BODY_BYTES (v11; larger ones stay files under blobs/). A file a body cost
 * a new inode each: creating them took the writer thread up to 4.5 s of a 10 s crawl in bench:crawl, the
 * file system's inode allocator searching past recently freed ones, and a million pages made a
 * million files. A rowid table: a body spills onto overflow pages of its own either way.
 */
const BODY_BYTES_SQL = `CREATE TABLE IF NOT EXISTS body_bytes (
  hash TEXT PRIMARY KEY,
  bytes BLOB NOT NULL
);`;

/**
 * The frontier and the links (v12) are rowid tables. WITHOUT ROWID, keyed by random 32-character
 * ids, every row went to a random place in its tree: a group commit dirtied a page for nearly each
 * row it wrote, and every index entry carried the whole key again. In a rowid table new rows share
 * the last leaf pages; only the indexes take random inserts, with entries a third the size
 * (bench:crawl: ~30 % fewer bytes written, the writer's SQLite time 12–25 % lower).
 */
const frontierSql = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
  run_id INTEGER NOT NULL,
  url_id TEXT NOT NULL,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  depth INTEGER NOT NULL,
  priority REAL NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  inlinks INTEGER NOT NULL DEFAULT 0,
  fresh INTEGER NOT NULL DEFAULT 0,
  redirects INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  not_before INTEGER NOT NULL DEFAULT 0,
  discovered_from TEXT,
  PRIMARY KEY (run_id, url_id)
);`;
/** The queued URLs of a host best first (a frontier held in memory only in part reads them back); it serves the (run_id, state) lookups too. */
const FRONTIER_QUEUE_SQL = 'CREATE INDEX IF NOT EXISTS frontier_queue ON frontier (run_id, state, host, priority);';

const edgesSql = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
  from_id TEXT NOT NULL,
  snapshot TEXT NOT NULL,
  to_id TEXT NOT NULL,
  to_url TEXT NOT NULL,
  anchor TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '',
  section TEXT NOT NULL DEFAULT 'body',
  rel TEXT NOT NULL,
  internal INTEGER NOT NULL DEFAULT 1,
  nofollow INTEGER NOT NULL,
  to_page_id TEXT,
  UNIQUE (from_id, snapshot, to_id)
);`;
const EDGE_INDEXES_SQL = `CREATE INDEX IF NOT EXISTS edges_to ON edges (to_id);
CREATE INDEX IF NOT EXISTS edges_to_page ON edges (to_page_id);`;

/** The column names a CREATE TABLE statement above declares, in order. */
const columnsOf = (ddl: string) => [...ddl.matchAll(/^ {2}([a-z_]+) (?:INTEGER|TEXT|REAL|BLOB)\b/gm)].map((m) => m[1]).join(', ');

/** Copies a table into its rowid successor and puts the successor in its place (its indexes go with the old table). */
const rebuilt = (table: string, create: (name: string) => string, indexes: string) => {
  const columns = columnsOf(create(table));
  return `${create(`${table}_v12`)}
  INSERT INTO ${table}_v12 (${columns}) SELECT ${columns} FROM ${table};
  DROP TABLE ${table};
  ALTER TABLE ${table}_v12 RENAME TO ${table};
  ${indexes}`;
};

/** SQL that takes a data directory from version N to N + 1, keyed by N. */
export const MIGRATIONS: Record<number, string | ((db: Db) => void)> = {
  // v3: body owners claimed at fetch time (the first page fetched with some bytes owns them).
  2: `CREATE TABLE IF NOT EXISTS bodies (hash TEXT PRIMARY KEY, url_id TEXT NOT NULL, claimed_at INTEGER NOT NULL) WITHOUT ROWID;
      INSERT OR IGNORE INTO bodies (hash, url_id, claimed_at)
        SELECT content_hash, url_id, min(fetched_at) FROM pages WHERE content_hash IS NOT NULL AND duplicate_of IS NULL GROUP BY content_hash;`,
  // v4: what a page was extracted from (as served, or rendered by Chromium) and its render decision.
  3: `ALTER TABLE pages ADD COLUMN fetcher TEXT NOT NULL DEFAULT 'http';
      ALTER TABLE pages ADD COLUMN render TEXT;`,
  // v5: summaries, tags and embedding metadata; the full-text index; the vectors; the enrichment dead letters.
  4: ENRICH_SQL,
  // v6: CSS-selector fields with the extraction; the selections of runs ended with --select.
  5: `ALTER TABLE extracts ADD COLUMN fields TEXT;
      ${SELECTIONS_SQL}`,
  // v7: the origins a run's search and social targets put in its scope.
  6: `ALTER TABLE runs ADD COLUMN scope TEXT;`,
  // v8: chunks in a rowid table (see chunksSql); simhash_bands gains its url_id index in SCHEMA_SQL
  // (a page's bands were deleted by a scan of the whole table: quadratic in the pages crawled).
  7: `${chunksSql('chunks_v8')}
      INSERT INTO chunks_v8 (url_id, seq, id, position, tokens, text, prev_id, next_id)
        SELECT url_id, seq, id, position, tokens, text, prev_id, next_id FROM chunks;
      DROP TABLE chunks;
      ALTER TABLE chunks_v8 RENAME TO chunks;`,
  // v9: changes between runs.
  8: CHANGES_SQL,
  // v10: a sign sketch beside each vector, for the approximate first pass of vector search.
  9: backfillSketches,
  // v11: small raw bodies in the database (see BODY_BYTES_SQL); the files of earlier runs are read where they are.
  10: BODY_BYTES_SQL,
  // v12: the frontier and the links in rowid tables (see frontierSql).
  11: `${rebuilt('frontier', frontierSql, FRONTIER_QUEUE_SQL)}
       ${rebuilt('edges', edgesSql, EDGE_INDEXES_SQL)}`,
  // v13: how much an enriched page reads as a listing (search ranks listings below content). A
  // directory that reached v5 with this trawl's ENRICH_SQL has the column already.
  12: (db) => {
    const columns = (db.pragma('table_info(enrichments)') as Array<{ name: string }>).map((c) => c.name);
    if (!columns.includes('listing')) db.exec('ALTER TABLE enrichments ADD COLUMN listing REAL');
  },
  // v14: the fields a hit shows from its page's extraction (HIT_FIELDS), as JSON: those of the
  // records already written come from their language and published columns. And the page's
  // values for the crawl's extract schema, as JSON.
  13: (db) => {
    const columns = (db.pragma('table_info(enrichments)') as Array<{ name: string }>).map((c) => c.name);
    if (!columns.includes('page_fields')) db.exec('ALTER TABLE enrichments ADD COLUMN page_fields TEXT');
    if (!columns.includes('extracted')) db.exec('ALTER TABLE enrichments ADD COLUMN extracted TEXT');
    db.exec("UPDATE enrichments SET page_fields = json_object('language', language, 'published', published) WHERE page_fields IS NULL");
  },
};

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  seeds TEXT NOT NULL,
  config TEXT NOT NULL,
  scope TEXT
);
${frontierSql('frontier')}
${FRONTIER_QUEUE_SQL}
-- The narrower index frontier_queue replaced.
DROP INDEX IF EXISTS frontier_state;
CREATE TABLE IF NOT EXISTS hosts (
  host TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  robots_status INTEGER,
  robots_body TEXT,
  robots_error TEXT,
  robots_fetched_at INTEGER,
  robots_expires_at INTEGER
);
CREATE TABLE IF NOT EXISTS pages (
  url_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  run_id INTEGER NOT NULL,
  status INTEGER NOT NULL,
  mime TEXT NOT NULL,
  charset TEXT,
  content_hash TEXT,
  bytes INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  etag TEXT,
  last_modified TEXT,
  fetched_at INTEGER NOT NULL,
  title TEXT,
  indexable INTEGER NOT NULL,
  nofollow INTEGER NOT NULL,
  duplicate_of TEXT,
  canonical_url TEXT,
  fetcher TEXT NOT NULL DEFAULT 'http',
  render TEXT
);
CREATE INDEX IF NOT EXISTS pages_hash ON pages (content_hash);
CREATE TABLE IF NOT EXISTS bodies (
  hash TEXT PRIMARY KEY,
  url_id TEXT NOT NULL,
  claimed_at INTEGER NOT NULL
) WITHOUT ROWID;
${BODY_BYTES_SQL}
CREATE TABLE IF NOT EXISTS fetches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL,
  url_id TEXT NOT NULL,
  url TEXT NOT NULL,
  raw_url TEXT,
  kind TEXT NOT NULL,
  fetcher TEXT NOT NULL DEFAULT 'http',
  warc_file TEXT,
  warc_offset INTEGER,
  warc_length INTEGER,
  status INTEGER,
  fetched_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  content_hash TEXT,
  bytes INTEGER NOT NULL,
  truncated INTEGER NOT NULL,
  not_modified INTEGER NOT NULL,
  error TEXT,
  headers TEXT
);
CREATE INDEX IF NOT EXISTS fetches_run ON fetches (run_id);
CREATE INDEX IF NOT EXISTS fetches_url ON fetches (url_id);
${edgesSql('edges')}
${EDGE_INDEXES_SQL}
CREATE TABLE IF NOT EXISTS extracts (
  url_id TEXT PRIMARY KEY,
  run_id INTEGER NOT NULL,
  snapshot TEXT NOT NULL,
  title TEXT,
  description TEXT,
  author TEXT,
  published TEXT,
  modified TEXT,
  language TEXT,
  canonical_url TEXT,
  site_name TEXT,
  content_type TEXT,
  word_count INTEGER NOT NULL,
  reading_minutes INTEGER NOT NULL,
  method TEXT NOT NULL,
  markdown TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  simhash TEXT NOT NULL,
  near_duplicate_of TEXT,
  near_duplicate_distance INTEGER,
  text_duplicate_of TEXT,
  pdf_pages INTEGER,
  metadata TEXT NOT NULL,
  fields TEXT
);
CREATE INDEX IF NOT EXISTS extracts_text_hash ON extracts (text_hash);
${chunksSql('chunks')}
CREATE TABLE IF NOT EXISTS simhash_bands (
  band INTEGER NOT NULL,
  value TEXT NOT NULL,
  url_id TEXT NOT NULL,
  PRIMARY KEY (band, value, url_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS simhash_bands_url ON simhash_bands (url_id);
CREATE TABLE IF NOT EXISTS ranks (
  url_id TEXT PRIMARY KEY,
  run_id INTEGER NOT NULL,
  inlinks INTEGER NOT NULL,
  hosts INTEGER NOT NULL,
  pagerank REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS aliases (
  url_id TEXT NOT NULL,
  url TEXT NOT NULL,
  target_url TEXT NOT NULL,
  target_id TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (url_id, reason)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS aliases_target ON aliases (target_id);
${ENRICH_SQL}
${SELECTIONS_SQL}
${CHANGES_SQL}
${SKETCHES_SQL}`;
