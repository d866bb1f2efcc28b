import { test } from 'node:test';
import assert from 'node:assert/strict';
import { robotsAllows, robotsPolicyFrom } from '../../shared/robots/robots-policy.js';

test('2xx is parsed', () => {
  const p = robotsPolicyFrom({ status: 200, body: 'User-agent: *\nDisallow: /x\n' }, 'trawl');
  assert.equal(robotsAllows(p, '/x'), false);
  assert.equal(robotsAllows(p, '/y'), true);
});

test('4xx allows everything', () => {
  for (const status of [401, 403, 404, 410]) assert.equal(robotsAllows(robotsPolicyFrom({ status }, 'trawl'), '/any'), true);
});

test('5xx, 429 and network errors disallow the whole host', () => {
  for (const outcome of [{ status: 500 }, { status: 503 }, { status: 429 }, { error: 'ECONNREFUSED' }]) {
    const p = robotsPolicyFrom(outcome, 'trawl');
    assert.equal(p.kind, 'unreachable');
    assert.equal(robotsAllows(p, '/any'), false);
  }
});
