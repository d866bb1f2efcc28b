// npm run bench:select — the homepage pass (fire-protection profile, default settings: 20 head
// previews, the 1 s host delay) on each company fixture site served on loopback; per-site wall time
// and p50/p90, then the same with the delay off. BENCH_SELECT_DELAYS=1000,0 picks the delays.
import { select } from '../shared/library/select.js';
import { COMPANIES, companyResponse } from '../support/web/companies.js';
import { serve } from '../support/helpers.js';
import { machine, publish, today } from './report.js';

const DELAYS = (process.env.BENCH_SELECT_DELAYS ?? '1000,0').split(',').map(Number);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

console.log(`bench:select — ${COMPANIES.length} fixture sites, profile fire-protection, Node ${process.version}\n`);
const rows: string[][] = [];
for (const delayMs of DELAYS) {
  const times: number[] = [];
  for (const c of COMPANIES) {
    const site = await serve((req, res) => {
      const r = companyResponse(c, (req.url ?? '/').split('?')[0]!);
      res.writeHead(r.status, r.headers).end(r.body);
    });
    try {
      const r = await select(`${site.origin}/`, { profile: 'fire-protection', allowPrivateNetwork: true, delayMs });
      times.push(r.tookMs / 1000);
      console.log(
        `delay ${delayMs} ms, ${c.name}: ${(r.tookMs / 1000).toFixed(2)} s, ${r.previews.fetched} heads, selected ${r.selected.map((s) => s.path).join(' ')}`,
      );
    } finally {
      await site.close();
    }
  }
  times.sort((a, b) => a - b);
  rows.push([`${delayMs} ms`, `${times.map((t) => t.toFixed(2)).join(', ')} s`, `${pct(times, 50).toFixed(2)} s`, `${pct(times, 90).toFixed(2)} s`]);
}
const columns = ['host delay', 'per site', 'p50', 'p90'];
console.log(`\n| ${columns.join(' | ')} |\n|---|---|---:|---:|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
publish({ bench: 'select', command: 'npm run bench:select', machine: machine(), measured: today(), tables: [{ columns, rows }] });
