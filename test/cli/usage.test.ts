// Help and errors like a mature CLI. Each command has its own help with an example;
// --version; "did you mean" for unknown flags and commands; negative numbers and profile JSON
// errors reported plainly; read commands never create a data directory; a closed pipe is the end
// of the output, not a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../e2e/cli-process.js';
import { COMMANDS, commandHelp, didYouMean, joinNegativeValues } from '../../shared/cli/usage.js';
import { tempDir } from '../../support/helpers.js';

test('--version, and each command its own help with an example', async () => {
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), `trawl ${(JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version}`);
  const crawl = await runCli(['crawl', '--help']);
  const status = await runCli(['status', '--help']);
  assert.equal(crawl.code, 0);
  assert.match(crawl.stdout, /^Usage: trawl crawl <seed…>/);
  assert.match(crawl.stdout, /Example: trawl crawl https:\/\/example.com\/ --max-pages 200/);
  assert.match(status.stdout, /^Usage: trawl status/);
  assert.ok(status.stdout.split('\n').length < 10, 'status has no crawl settings in its help');
  assert.notEqual(crawl.stdout, status.stdout);
});

test("each command's help gives each of its flags a line of description", () => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    const help = commandHelp(name)!;
    for (const flag of command.flags) {
      const line = help.split('\n').find((l) => l.startsWith(`  --${flag} `) || l === `  --${flag}`);
      assert.ok(line && /\S\s{2,}\S.{9,}$/.test(line), `${name} --${flag} has a line of description: ${line}`);
    }
  }
  assert.match(commandHelp('export')!, /^ {2}--run <N> +one run, by its number/m);
});

test('unknown flags and commands get a suggestion; a negative number is a plain range error', async () => {
  const flag = await runCli(['crawl', 'https://example.com/', '--max-page', '5']);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /Unknown option '--max-page' \(did you mean --max-pages\?\)/);
  const command = await runCli(['crawll', 'https://example.com/']);
  assert.equal(command.code, 2);
  assert.match(command.stderr, /unknown command "crawll" \(did you mean crawl\?\)/);
  const negative = await runCli(['crawl', 'https://example.com/', '--max-pages', '-5']);
  assert.equal(negative.code, 2);
  assert.match(negative.stderr, /--max-pages: expected a whole number from 1/);
  assert.doesNotMatch(negative.stderr, /ambiguous|parseArgs/);
  assert.deepEqual(joinNegativeValues(['--delay-ms', '-1', '-h']), ['--delay-ms=-1', '-h']);
  assert.equal(didYouMean('zzzzzz', ['crawl', 'status']), '');
});

test('a profile that is not JSON is reported with its line and column', async () => {
  const dir = tempDir();
  try {
    const file = join(dir.dir, 'profile.json');
    writeFileSync(file, '{\n  "name": "x",\n  "weights": { oops }\n}\n');
    const out = await runCli(['crawl', 'https://example.com/', '--profile', file, '--data', dir.dir]);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /profile .*profile\.json is not valid JSON at line 3, column \d+/);
  } finally {
    dir.cleanup();
  }
});

test('read commands on a directory no crawl wrote create nothing and say so', async () => {
  const dir = tempDir();
  try {
    const typo = join(dir.dir, 'typo');
    for (const cmd of [['enrich'], ['status'], ['search', 'x'], ['graph', 'top']]) {
      const out = await runCli([...cmd, '--data', typo]);
      assert.equal(out.code, 2, cmd.join(' '));
      assert.match(out.stderr, /no crawl has run there/);
      assert.equal(existsSync(typo), false, `${cmd.join(' ')} created ${typo}`);
    }
  } finally {
    dir.cleanup();
  }
});

test('piped into a reader that closes early, the CLI ends quietly', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.doesNotMatch(stderr, /EPIPE|at .*\(/);
  assert.ok(code === 0 || code === null, `exit ${code}`);
});
