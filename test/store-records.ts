import type { EdgeRecord, ExtractRecord, FetchRecord, FrontierRow, PageRecord } from '../shared/ports/index.js';
import { simhash } from '../shared/dedupe/simhash.js';
import { metaFieldsOf } from '../shared/extract/meta-fields.js';
import { frontierRow } from '../support/helpers.js';

/** Store records for store tests: a URL `http://a.test/<id>` and its fetch, page, edge and extraction. */
/** `fetchRecord` and `page` take one object: the record's identity (`runId`, `urlId`) and any field to set; the others are the record's identity first (run, id), then what tests vary most, then overrides. */
export const row = (
  runId: number,
  id: string,
  state: FrontierRow['state'] = 'queued',
  reason?: FrontierRow['reason'],
  extra: Partial<FrontierRow> = {},
): FrontierRow => frontierRow({ runId, urlId: id, url: `http://a.test/${id}`, depth: 1, state, reason, ...extra });
export const fetchRecord = ({ runId, urlId, ...overrides }: Pick<FetchRecord, 'runId' | 'urlId'> & Partial<FetchRecord>): FetchRecord => ({
  runId,
  urlId,
  url: `http://a.test/${urlId}`,
  kind: 'page',
  fetcher: 'http',
  status: 200,
  fetchedAt: 0,
  durationMs: 5,
  bytes: 10,
  truncated: false,
  notModified: false,
  ...overrides,
});
export const page = ({ runId, urlId, ...overrides }: Pick<PageRecord, 'runId' | 'urlId'> & Partial<PageRecord>): PageRecord => ({
  urlId,
  url: `http://a.test/${urlId}`,
  host: 'a.test',
  runId,
  status: 200,
  mime: 'text/html',
  bytes: 10,
  truncated: false,
  fetchedAt: 0,
  indexable: true,
  nofollow: false,
  ...overrides,
});
export const edge = (from: string, snapshot: string, to: string, extra: Partial<EdgeRecord> = {}): EdgeRecord => ({
  fromId: from,
  snapshot,
  toId: to,
  toUrl: `http://a.test/${to}`,
  anchor: to,
  context: `see ${to}`,
  section: 'body',
  rel: '',
  internal: true,
  nofollow: false,
  ...extra,
});
/** As the extraction stores it, its metadata holds its text fields (title, language, …) too. */
export const extract = (id: string, text: string, snapshot: string, { metadata, ...extra }: Partial<ExtractRecord> = {}): ExtractRecord => ({
  urlId: id,
  runId: 1,
  snapshot,
  wordCount: 3,
  readingMinutes: 0,
  method: 'readability',
  markdown: text,
  textHash: `t-${text}`,
  simhash: simhash(text),
  ...extra,
  metadata: { ...metaFieldsOf(extra), ...metadata },
});

/** The frontier and the links as data schema 11 had them: WITHOUT ROWID, keyed by random ids. */
const SCHEMA_11 = {
  frontier: {
    columns: `run_id INTEGER NOT NULL, url_id TEXT NOT NULL, url TEXT NOT NULL, host TEXT NOT NULL, depth INTEGER NOT NULL, priority REAL NOT NULL,
      kind TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, inlinks INTEGER NOT NULL DEFAULT 0, fresh INTEGER NOT NULL DEFAULT 0,
      redirects INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, not_before INTEGER NOT NULL DEFAULT 0, discovered_from TEXT`,
    key: 'run_id, url_id',
  },
  edges: {
    columns: `from_id TEXT NOT NULL, snapshot TEXT NOT NULL, to_id TEXT NOT NULL, to_url TEXT NOT NULL, anchor TEXT NOT NULL,
      context TEXT NOT NULL DEFAULT '', section TEXT NOT NULL DEFAULT 'body', rel TEXT NOT NULL, internal INTEGER NOT NULL DEFAULT 1,
      nofollow INTEGER NOT NULL, to_page_id TEXT`,
    key: 'from_id, snapshot, to_id',
  },
};

/** SQL that puts a table back in its schema-11 shape, its rows kept (its indexes go with the old table). */
export const backToSchema11 = (table: keyof typeof SCHEMA_11) =>
  `ALTER TABLE ${table} RENAME TO ${table}_11; CREATE TABLE ${table} (${SCHEMA_11[table].columns}, PRIMARY KEY (${SCHEMA_11[table].key})) WITHOUT ROWID;
   INSERT INTO ${table} SELECT * FROM ${table}_11; DROP TABLE ${table}_11;`;
