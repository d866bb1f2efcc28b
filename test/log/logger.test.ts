// Logs a person can read on a terminal, JSON lines for machines. The format follows
// stderr (text on a terminal, JSON otherwise) unless TRAWL_LOG_FORMAT or --log-format says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, defaultLogFormat, textLine } from '../../shared/log/logger.js';
import { runCli } from '../e2e/cli-process.js';

test('text on a terminal, JSON lines elsewhere, and what the environment asks wins', () => {
  assert.equal(defaultLogFormat({}, true), 'text');
  assert.equal(defaultLogFormat({}, false), 'json');
  assert.equal(defaultLogFormat({ TRAWL_LOG_FORMAT: 'json' }, true), 'json');
  assert.equal(defaultLogFormat({ TRAWL_LOG_FORMAT: 'text' }, false), 'text');
});

test('a text line has the time, the level, the component, the message and its fields', () => {
  const lines: string[] = [];
  const log = createLogger('info', 'trawl', (l) => lines.push(l), 'text').child('fetch');
  log.debug('not shown');
  log.warn('host parked', { host: 'a.test', reason: 'too many failures', tries: 3, skip: undefined });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d WARN {2}trawl\.fetch: host parked host=a\.test reason="too many failures" tries=3$/);
  assert.equal(textLine(new Date('2026-11-25T10:00:00Z'), 'error', 'x', 'm', { o: { a: 1 } }), '10:00:00 ERROR x: m o={"a":1}');
  const json: string[] = [];
  createLogger('info', 'trawl', (l) => json.push(l), 'json').info('stored', { pages: 2 });
  assert.deepEqual(
    { ...(JSON.parse(json[0]!) as object), time: undefined },
    { time: undefined, level: 'info', component: 'trawl', message: 'stored', pages: 2 },
  );
});

test('--log-format takes json or text, and says so otherwise', async () => {
  const bad = await runCli(['status', '--log-format', 'yaml']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--log-format yaml: use json or text/);
  const help = await runCli(['--help']);
  assert.match(help.stdout, /--log-format json\|text/);
});
