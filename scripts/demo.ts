// npm run demo — serves the bundled synthetic web on loopback and crawls it into ./trawl-data.
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { resolveSettings } from '../shared/cli/args.js';
import { crawlCommand } from '../shared/cli/crawl-command.js';
import { startWeb } from '../test/web/server.js';

const dataDir = resolve(process.env.TRAWL_DATA ?? './trawl-data');
// One port per host on 127.0.0.1 works everywhere (macOS has only 127.0.0.1 on loopback).
const web = await startWeb({ articles: 40, blogHosts: 3, crawlDelaySeconds: 1 }, 'port', 47_100);
console.log('synthetic web on loopback:');
for (const [name, origin] of Object.entries(web.origins)) console.log(`  ${name.padEnd(8)} ${origin}/`);
console.log(`\ncrawling into ${dataDir} (loopback allowed, 50 ms between requests to a host: it is our own server)\n`);

const settings = resolveSettings({
  data: dataDir, 'allow-private-network': true, 'delay-ms': '50', 'backoff-base-ms': '500', 'max-host-failures': '3',
}, process.env);
const tty = process.stderr.isTTY;
try {
  await crawlCommand(web.seeds(), settings, { out: (l) => console.log(l), status: tty ? (l) => process.stderr.write(`\r\x1b[2K${l}`) : undefined });
} finally {
  await web.close();
}

const db = new Database(join(dataDir, 'trawl.db'), { readonly: true });
const run = (db.prepare('SELECT max(id) AS id FROM runs').get() as { id: number }).id;
const top = db.prepare(`SELECT p.url, p.title, count(*) AS inlinks FROM edges e JOIN pages p ON p.url_id = e.to_id
  WHERE p.run_id = ? GROUP BY p.url_id ORDER BY inlinks DESC, p.url LIMIT 8`).all(run) as Array<{ url: string; title: string | null; inlinks: number }>;
console.log('\nmost linked pages:');
for (const t of top) console.log(`  ${String(t.inlinks).padStart(3)} links  ${t.title ?? '(no title)'}  ${t.url}`);
const found = db.prepare("SELECT p.title, p.url FROM pages p WHERE p.run_id = ? AND p.title LIKE '%article 7%' ORDER BY p.url LIMIT 5").all(run) as Array<{ title: string; url: string }>;
console.log('\npages whose title matches "article 7":');
for (const f of found) console.log(`  ${f.title}  ${f.url}`);
db.close();
console.log(`\nsummarise it again with: npm run trawl -- status --data ${dataDir}`);
console.log('run the demo again to see a conditional re-crawl (unchanged pages answer 304)');
