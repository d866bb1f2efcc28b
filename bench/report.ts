// What a bench measured, as data: its tables, the command that printed them and the machine. A
// bench run with `--write-docs` keeps its result in bench/results/<bench>.json and writes it into
// docs/benchmarks.md, between `<!-- bench:<name> -->` and `<!-- /bench:<name> -->`, so the manual's
// figures are the benches' last output and nothing else (test/docs/benchmarks-doc.test.ts checks).
import { cpus } from 'node:os';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchTable {
  /** A line above the table, when the result has more than one. */
  title?: string;
  columns: string[];
  /** Cells as printed: numbers are written with their own precision. */
  rows: Array<Array<string | number>>;
}

export interface BenchResult {
  /** The block's name in the manual: `bench:<name>`. */
  bench: string;
  /** The command that printed it. */
  command: string;
  /** Cores, CPU model and Node version of the machine it ran on. */
  machine: string;
  /** The day it ran (YYYY-MM-DD). */
  measured: string;
  tables: BenchTable[];
  /** Sentences under the tables: the comparison, the target, what binds. */
  notes?: string[];
}

export const RESULTS_DIR = join('bench', 'results');
export const BENCH_DOC = join('docs', 'benchmarks.md');

/** This machine, as a result names it. */
export function machine(): string {
  const cpu = cpus()[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  return `${cpus().length} cores (${cpu}), Node ${process.version}`;
}

const cell = (v: string | number) => (typeof v === 'number' ? v.toLocaleString('en', { maximumFractionDigits: 6 }) : v).replace(/\|/g, '\\|');
const numeric = (v: string | number) => typeof v === 'number' || /^[-+$]?[\d.,]+(?:e[-+]\d+)?\s*%?$/.test(v);

/** A result as the manual shows it: the command and machine, its tables, its notes. */
export function renderResult(r: BenchResult): string {
  const out = [`Last run: \`${r.command}\`, ${r.measured}, ${r.machine}.`, ''];
  for (const t of r.tables) {
    if (t.title) out.push(`${t.title}`, '');
    out.push(`| ${t.columns.map(cell).join(' | ')} |`);
    // A column of numbers is right-aligned, one of words left.
    out.push(`|${t.columns.map((_, i) => (t.rows.every((r) => r[i] === undefined || numeric(r[i]!)) ? '---:' : '---')).join('|')}|`);
    for (const row of t.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
    out.push('');
  }
  for (const n of r.notes ?? []) out.push(n, '');
  return out.join('\n').trimEnd();
}

const block = (name: string) => new RegExp(`(<!-- bench:${name} -->\\n)(?:[\\s\\S]*?\\n)?(<!-- /bench:${name} -->)`);

/** The manual with every block written from its result; a result without a block is an error. */
export function renderDoc(doc: string, results: BenchResult[]): string {
  let out = doc;
  for (const r of results) {
    const re = block(r.bench);
    if (!re.test(out))
      throw new Error(`${BENCH_DOC} has no block for bench:${r.bench}: add <!-- bench:${r.bench} --> and <!-- /bench:${r.bench} --> where its figures go`);
    out = out.replace(re, (_m, open: string, close: string) => `${open}${renderResult(r)}\n${close}`);
  }
  return out;
}

/** The blocks the manual has, by name. */
export function docBlocks(doc: string): string[] {
  return [...doc.matchAll(/<!-- bench:([\w-]+) -->/g)].map((m) => m[1]!);
}

/** Every kept result, in name order. */
export function readResults(dir = RESULTS_DIR): BenchResult[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as BenchResult);
}

/** With `--write-docs` on the command line: keeps the result and writes it into the manual. */
export function publish(r: BenchResult): void {
  if (!process.argv.includes('--write-docs')) return;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${r.bench}.json`), `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(BENCH_DOC, renderDoc(readFileSync(BENCH_DOC, 'utf8'), readResults()));
  console.error(`wrote ${join(RESULTS_DIR, `${r.bench}.json`)} and its block in ${BENCH_DOC}`);
}

/** A table a bench prints as markdown (`| a | b |` lines, the header's first): as a result holds it. */
export function markdownTable(header: string, rows: string[], title?: string): BenchTable {
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  return { ...(title ? { title } : {}), columns: cells(header), rows: rows.map(cells) };
}

export const today = () => new Date().toISOString().slice(0, 10);
