// Runs every test file under test/ with Node's test runner (Node 20 has no glob support in --test).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

// Two suites: `fast` (npm test: unit, contract, the embedded pipeline end to end) and `slow` (npm
// run test:slow: the AWS suites on emulators and CDK synthesis, the browser suites, the packaged
// install, the long end-to-end crawls); `all` runs both. The slow ones are the files below.
const SLOW = [
  'test/package/',
  'test/lib/',
  'test/functions/',
  'test/e2e/cloud',
  'test/e2e/scale',
  'test/e2e/doctor-rebuild',
  'test/e2e/archive-graph',
  'test/e2e/data-dir',
  'test/e2e/render',
  'test/e2e/disk-full',
  'test/e2e/hostile',
  'test/e2e/recrawl',
  'test/e2e/resume',
  'test/api/ui',
  'test/api/mcp-inspector',
  'test/changes/changes-ui',
  'test/contract/aws',
  'test/pipeline/api-crawls',
  'test/pipeline/fetch-worker',
  'test/pipeline/run-control',
  'test/pipeline/run-finalize',
  'test/api-report',
  'test/archive/capture-index',
  'test/cli/usage',
  'test/search/search-cli',
  'test/scoring/focused-crawl',
];
const args = process.argv.slice(2);
const suite = args.find((a) => a.startsWith('--suite='))?.slice('--suite='.length) ?? 'all';
if (!['fast', 'slow', 'all'].includes(suite)) {
  console.error(`--suite=${suite}: use --suite=fast, --suite=slow or --suite=all`);
  process.exit(2);
}
const isSlow = (f) => SLOW.some((p) => f.startsWith(p));
const filter = args.filter((a) => !a.startsWith('--suite='));
// The slowest files start first (two run at a time): a long one started last would run alone at
// the end while the other slot idles. Only the order changes.
const SLOW_FIRST = [
  'test/package/',
  'test/e2e/cloud',
  'test/e2e/scale',
  'test/e2e/render',
  'test/api/ui',
  'test/e2e/disk-full',
  'test/e2e/hostile',
  'test/lib/',
];
const rank = (f) => {
  const i = SLOW_FIRST.findIndex((p) => f.startsWith(p));
  return i === -1 ? SLOW_FIRST.length : i;
};
const files = findTests('test')
  .filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)))
  .filter((f) => suite === 'all' || (suite === 'slow') === isSlow(f))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TRAWL_TEST_CONCURRENCY ?? '2';
// A test file that hangs fails after 10 minutes with its name, and the whole run is stopped past its
// budget, so a hang never holds CI until its own timeout. The bound is a hang guard, not a speed
// target: the slowest files (the embedded 20,000-page crawl, the cloud's second run) take 3-4
// minutes beside one other file, and past 5 while the open-web test shares the two cores.
const budgetMinutes = Number(process.env.TRAWL_TEST_BUDGET_MINUTES ?? 50);
// fast-harness.mjs: the test runner's async hook costs every promise ~1 µs (see the file).
const runner = (list, timeoutMs, testConcurrency) =>
  spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './test/fast-harness.mjs', '--test', `--test-concurrency=${testConcurrency}`, `--test-timeout=${timeoutMs}`, ...list],
    {
      stdio: 'inherit',
      detached: true,
      // The AWS SDK warns once a process that Node 20 will not be supported by its releases after
      // January 2027; the tests run on 20 as well as 22 and 24, and the warning would repeat in every file.
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
// The long files run beside the others in a runner of their own, one at a time, with a 40-minute
// bound: the open-web scale test (~16 minutes alone, ~25 in CI beside the other runner) and the
// closed-web cloud crawl compared with an embedded one (~3 minutes of one core, past 5 minutes on
// two cores shared three ways). Every other file fails after 10 minutes.
const LONG = ['test/e2e/cloud-open-web', 'test/e2e/cloud.test.ts'];
const isLong = (f) => LONG.some((p) => f.startsWith(p));
const children = [];
if (files.some((f) => !isLong(f)))
  children.push(
    runner(
      files.filter((f) => !isLong(f)),
      600_000,
      concurrency,
    ),
  );
if (files.some(isLong)) children.push(runner(files.filter(isLong), 2_400_000, '1'));
const stopAll = (signal) => {
  for (const child of children) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  }
};
const budget = setTimeout(() => {
  console.error(
    `\nthe test run passed its ${budgetMinutes}-minute budget (TRAWL_TEST_BUDGET_MINUTES): stopped; the test running last above is the one that hung`,
  );
  stopAll('SIGKILL');
  process.exit(1);
}, budgetMinutes * 60_000);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (stopAll(signal), process.exit(130)));
let worst = 0;
let left = children.length;
for (const child of children) {
  child.on('exit', (code, signal) => {
    worst = Math.max(worst, code ?? (signal ? 1 : 0));
    if (--left > 0) return;
    clearTimeout(budget);
    process.exit(worst);
  });
}
