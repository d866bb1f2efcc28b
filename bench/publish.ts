// Publishes a result a plain-JavaScript script measured (npm run check:iam): `tsx bench/publish.ts
// '<BenchResult JSON without machine and date>' --write-docs` fills in the machine and the day,
// keeps it in bench/results and writes its block of docs/benchmarks.md.
import { machine, publish, today, type BenchResult } from './report.js';

const [json] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!json) throw new Error('usage: tsx bench/publish.ts \'{"bench": …, "command": …, "tables": […]}\' --write-docs');
publish({ ...(JSON.parse(json) as Omit<BenchResult, 'machine' | 'measured'>), machine: machine(), measured: today() });
