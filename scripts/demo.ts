// npm run demo — serves the bundled synthetic web on loopback, crawls it into ./trawl-data, searches
// it, then serves the web UI over the crawl until Ctrl-C.
import Database from '../shared/store/local/sqlite-driver.js';
import { join, resolve } from 'node:path';
import { resolveSettings } from '../shared/cli/args.js';
import { crawlCommand } from '../shared/cli/crawl-command.js';
import { searchCommand } from '../shared/cli/search-commands.js';
import { DEFAULT_PORT, startServer } from '../shared/cli/serve-command.js';
import { startWeb } from '../support/web/server.js';

const dataDir = resolve(process.env.TRAWL_DATA ?? './trawl-data');
// One port per host on 127.0.0.1 works everywhere (macOS has only 127.0.0.1 on loopback).
// `apps`: single-page apps, rendered in headless Chromium (a system browser, or the one @sparticuz/chromium ships).
const web = await startWeb({ articles: 40, blogHosts: 3, crawlDelaySeconds: 1, apps: 5, guides: true }, 'port', 47_100);
console.log('synthetic web on loopback:');
for (const [name, origin] of Object.entries(web.origins)) console.log(`  ${name.padEnd(8)} ${origin}/`);
console.log(`\ncrawling into ${dataDir} (loopback allowed, 50 ms between requests to a host: it is our own server)\n`);

const settings = resolveSettings(
  {
    data: dataDir,
    'allow-private-network': true,
    'delay-ms': '50',
    'backoff-base-ms': '500',
    'max-host-failures': '3',
    // Summaries, tags, embeddings and the search index, inline (the local provider: offline, no keys).
    enrich: true,
  },
  process.env,
);
const tty = process.stderr.isTTY;
try {
  await crawlCommand(web.seeds(), settings, { out: (l) => console.log(l), status: tty ? (l) => process.stderr.write(`\r\x1b[2K${l}`) : undefined });
} finally {
  await web.close();
}

const db = new Database(join(dataDir, 'trawl.db'), { readonly: true });
const top = db
  .prepare(
    `SELECT p.url, coalesce(x.title, p.title) AS title, r.inlinks, r.hosts, r.pagerank FROM ranks r JOIN pages p ON p.url_id = r.url_id
  LEFT JOIN extracts x ON x.url_id = r.url_id ORDER BY r.pagerank DESC LIMIT 8`,
  )
  .all() as Array<{ url: string; title: string | null; inlinks: number; hosts: number; pagerank: number }>;
console.log('\nmost linked pages (PageRank, inlinks):');
for (const t of top) console.log(`  ${t.pagerank.toFixed(4)}  ${String(t.inlinks).padStart(3)} links  ${t.title ?? '(no title)'}  ${t.url}`);
const dups = db.prepare('SELECT count(*) AS n FROM extracts WHERE near_duplicate_of IS NOT NULL OR text_duplicate_of IS NOT NULL').get() as { n: number };
const warcs = db.prepare('SELECT count(DISTINCT warc_file) AS files, count(*) AS records FROM fetches WHERE warc_file IS NOT NULL').get() as {
  files: number;
  records: number;
};
console.log(`\n${dups.n} near- or text-duplicates flagged; ${warcs.records} exchanges archived in ${warcs.files} WARC file(s) under ${join(dataDir, 'warc')}`);
db.close();

const query = 'how do I fix a dripping tap';
console.log(`\ntrawl search "${query}" --limit 3   (full-text BM25 and vectors, fused by reciprocal rank)\n`);
await searchCommand(settings, [query], { limit: '3' }, { out: (l) => console.log(l.replace(/^/gm, '  ')) });
console.log(
  `\nnext: npm run trawl -- search "robots.txt" --data ${dataDir}   |   npm run trawl -- graph top --data ${dataDir}   |   npm run trawl -- index --check --data ${dataDir}`,
);
console.log('run the demo again to see a conditional re-crawl (unchanged pages answer 304)');

// The API and the web UI over the demo crawl, as `trawl serve` runs them (TRAWL_DEMO_SERVE=false skips this).
if (!['0', 'false', 'no'].includes((process.env.TRAWL_DEMO_SERVE ?? '').toLowerCase())) {
  const server = await startServer(settings, { port: String(DEFAULT_PORT) }, process.env).catch(() => startServer(settings, { port: '0' }, process.env));
  console.log(`
the web UI and the API over this crawl: ${server.url}   (trawl serve; Ctrl-C stops it)`);
  await new Promise<void>((done) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => done());
  });
  await server.close();
}
