// Generated pages for the search benchmarks: the search fixture's sentences recombined, seeded.
import { DOCS } from '../test/fixtures/search/corpus.js';

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
