// npm run check:iam: runs the cloud suites with every handler's AWS SDK calls recorded and
// evaluated against the policies of the synthesized template (or of TRAWL_IAM_TEMPLATE=<file>),
// then prints "N calls checked, M denied" and exits non-zero when anything was denied.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const SUITES = [
  'test/e2e/cloud.test.ts',
  'test/e2e/cloud-search.test.ts',
  'test/e2e/cloud-targets.test.ts',
  'test/e2e/cloud-focus.test.ts',
  'test/e2e/cloud-render.test.ts',
  'test/e2e/cloud-hostile.test.ts',
  'test/e2e/cloud-ending.test.ts',
  'test/e2e/cloud-firecrawl.test.ts',
];
const dir = mkdtempSync(join(tmpdir(), 'trawl-iam-'));
const report = join(dir, 'report.jsonl');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const files = args.length ? args : SUITES;
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=dot', ...files], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, TRAWL_IAM_REPORT: report },
});
let checked = 0;
const denied = new Map();
if (existsSync(report)) {
  for (const line of readFileSync(report, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(line);
    checked += r.checked;
    for (const d of r.denied) denied.set(`${d.fn} ${d.action} ${d.resource}`, d.why);
  }
}
rmSync(dir, { recursive: true, force: true });
for (const why of denied.values()) console.log(`denied: ${why}`);
console.log(`${checked} calls checked, ${denied.size} denied`);
if (process.argv.includes('--write-docs') && files === SUITES) {
  const result = {
    bench: 'iam',
    command: 'npm run check:iam',
    tables: [{ columns: ['cloud suites run', 'AWS SDK calls checked against the synthesized roles', 'denied'], rows: [[files.length, checked, denied.size]] }],
  };
  spawnSync(process.execPath, ['--import', 'tsx', 'bench/publish.ts', JSON.stringify(result), '--write-docs'], { stdio: 'inherit' });
}
process.exit(denied.size > 0 || checked === 0 ? 1 : run.status === 0 ? 0 : 1);
