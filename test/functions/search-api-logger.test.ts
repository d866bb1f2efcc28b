// The search API Lambda logs through Powertools' Logger, as every other function does: JSON lines
// that name the service and the function, queryable in CloudWatch Logs Insights.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';
import { cloudEnvironment } from '../../support/cloud/harness.js';
import { callSearchApi } from '../../support/cloud/api-call.js';

let emu: Emulators;
before(async () => {
  emu = await startEmulators();
  const names = await emu.provision('search-logs');
  // A table that is not there: the request fails inside the handler, which logs it.
  cloudEnvironment(emu, { ...names, table: 'no-such-table' }, 'http://127.0.0.1:9');
});
after(() => emu.stop());

test('a failed search API request is logged as a Powertools JSON line naming the function', async () => {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((s) => s.write.bind(s));
  streams.forEach((stream, i) => {
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (writes[i] as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  });
  let status: number;
  try {
    status = (await callSearchApi('/runs')).status;
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i]!));
  }
  assert.equal(status, 500);
  const logged = lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.message === 'api request failed');
  assert.ok(logged, `no Powertools line among: ${lines.join('')}`);
  assert.equal(logged.level, 'ERROR');
  assert.equal(logged.service, 'trawl');
  assert.equal(logged.function, 'search-api');
  assert.equal(logged.path, '/runs');
  assert.match(String(logged.error), /no-such-table|not found|ResourceNotFound/i);
});
