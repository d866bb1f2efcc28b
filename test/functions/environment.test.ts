// The Lambda environment is one contract, named and parsed in functions/environment.ts,
// which the construct sets through and the handlers read through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENV, environmentOf, lambdaEnvironment } from '../../shared/config/lambda-environment.js';

test('the construct writes the variables the handlers read, with defaults and clear errors', () => {
  const written = environmentOf({ table: 't', bucket: 'b', frontierRetentionDays: '30', urlLeaseMs: '1500', apiAllowedHosts: 'a.example,b.example' });
  assert.deepEqual(written, {
    TABLE_NAME: 't',
    BUCKET_NAME: 'b',
    FRONTIER_RETENTION_DAYS: '30',
    URL_LEASE_MS: '1500',
    TRAWL_API_ALLOWED_HOSTS: 'a.example,b.example',
  });
  const read = lambdaEnvironment(written);
  assert.equal(read.frontierRetentionDays, 30);
  assert.equal(read.urlLeaseMs, 1500);
  assert.deepEqual(read.apiAllowedHosts, ['a.example', 'b.example']);
  assert.equal(read.vectorIndex, 'pages');
  assert.equal(read.apiKeyHeader, 'x-api-key');
  assert.throws(() => lambdaEnvironment({ BUCKET_NAME: 'b' }), /environment variable TABLE_NAME is not set: deploy the function with the Crawler construct/);
  assert.throws(() => lambdaEnvironment({ ...written, [ENV.urlLeaseMs]: 'soon' }), /environment variable URL_LEASE_MS is not valid/);
});
