/** Bumped whenever a table changes shape; a data dir with another version is refused. */
export const SCHEMA_VERSION = 1;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  seeds TEXT NOT NULL,
  config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS frontier (
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
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS frontier_state ON frontier (run_id, state);
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
  canonical_url TEXT
);
CREATE INDEX IF NOT EXISTS pages_hash ON pages (content_hash);
CREATE TABLE IF NOT EXISTS fetches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL,
  url_id TEXT NOT NULL,
  url TEXT NOT NULL,
  kind TEXT NOT NULL,
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
CREATE TABLE IF NOT EXISTS edges (
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  to_url TEXT NOT NULL,
  anchor TEXT NOT NULL,
  rel TEXT NOT NULL,
  nofollow INTEGER NOT NULL,
  PRIMARY KEY (from_id, to_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edges_to ON edges (to_id);
CREATE TABLE IF NOT EXISTS aliases (
  url_id TEXT NOT NULL,
  url TEXT NOT NULL,
  target_url TEXT NOT NULL,
  reason TEXT NOT NULL,
  PRIMARY KEY (url_id, reason)
) WITHOUT ROWID;
`;
