// Generated pages for the search and API benchmarks: the search fixture's sentences recombined, seeded.
import { createHash } from 'node:crypto';
import { DOCS } from '../support/search/corpus.js';
import { openLocalForWriting } from '../shared/store/local/open-local.js';

/** mulberry32: a small seeded generator, so every run builds the same store. */
export function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SENTENCES = DOCS.flatMap((d) => d.paragraphs.flatMap((p) => p.match(/[^.!?]+[.!?]/g) ?? []).map((s) => ({ s: s.trim(), topic: d.slug })));

/** A page: a topic's sentences first, then sentences from anywhere; 8–20 sentences in all. */
export function makePage(i: number, random: () => number): { title: string; markdown: string } {
  const doc = DOCS[i % DOCS.length]!;
  const own = SENTENCES.filter((x) => x.topic === doc.slug);
  const n = 8 + Math.floor(random() * 13);
  const body: string[] = [];
  for (let k = 0; k < n; k++) body.push(k < own.length && random() < 0.7 ? own[k]!.s : SENTENCES[Math.floor(random() * SENTENCES.length)]!.s);
  return { title: `${doc.title} (${i})`, markdown: `# ${doc.title} (${i})\n\n${body.join(' ')}` };
}

/** The url id of generated page `i` (32 hex characters, like a real one). */
export const pageId = (i: number) => createHash('sha256').update(`page ${i}`).digest('hex').slice(0, 32);

/**
 * Writes `n` pages into a fresh store as a crawl would leave them: each with its fetch, its
 * extraction and `links` links (anchor, context, section) to other generated pages.
 */
export async function seedStore(dir: string, n: number, links = 5): Promise<void> {
  const local = openLocalForWriting(dir, 'bench');
  const db = local.store.db;
  const random = rng(n);
  db.prepare(`INSERT INTO runs (id, started_at, finished_at, status, seeds, config) VALUES (1, ?, ?, 'finished', '[]', '{}')`).run(
    Date.now() - 60_000,
    Date.now(),
  );
  const page = db.prepare(
    `INSERT INTO pages (url_id, url, host, run_id, status, mime, bytes, truncated, fetched_at, indexable, nofollow, content_hash, title) VALUES (?, ?, ?, 1, 200, 'text/html', ?, 0, ?, 1, 0, ?, ?)`,
  );
  const fetch = db.prepare(
    `INSERT INTO fetches (run_id, url_id, url, kind, status, fetched_at, duration_ms, content_hash, bytes, truncated, not_modified) VALUES (1, ?, ?, 'page', 200, ?, ?, ?, ?, 0, 0)`,
  );
  const extract = db.prepare(
    `INSERT INTO extracts (url_id, run_id, snapshot, title, language, published, word_count, reading_minutes, method, markdown, text_hash, simhash, metadata)
     VALUES (?, 1, ?, ?, 'en', ?, ?, 1, 'bench', ?, ?, '0', '{}')`,
  );
  const edge = db.prepare(
    `INSERT OR IGNORE INTO edges (from_id, snapshot, to_id, to_url, anchor, context, section, rel, internal, nofollow, to_page_id) VALUES (?, ?, ?, ?, ?, ?, 'body', '', 1, 0, ?)`,
  );
  const urlOf = (i: number) => `https://site${i % 50}.example/p/${i}`;
  const started = Date.now() - 60_000;
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const { title, markdown } = makePage(i, random);
      const id = pageId(i);
      const hash = createHash('sha256').update(markdown).digest('hex');
      const at = started + Math.floor((i / n) * 55_000);
      page.run(id, urlOf(i), new URL(urlOf(i)).host, markdown.length, at, hash, title);
      fetch.run(id, urlOf(i), at, 20 + Math.floor(random() * 400), hash, markdown.length);
      const published = `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}`;
      extract.run(id, hash, title, published, markdown.split(/\s+/).length, markdown, hash);
      for (let k = 0; k < links; k++) {
        const to = Math.floor(random() * n);
        if (to === i) continue;
        const anchor = DOCS[to % DOCS.length]!.title;
        edge.run(id, hash, pageId(to), urlOf(to), anchor, `Read more: ${anchor}, and the rest of the guide.`, pageId(to));
      }
    }
  })();
  await local.close();
}
