// One typed gate into a crawl: whoever asks (REST, MCP, Firecrawl, the cloud's API), a launcher takes
// only the settings a job may choose, each valid by the settings table's own schema, and names what
// it refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkJobOptions, JOB_SETTINGS } from '../../shared/config/job-options.js';
import { CrawlJobs } from '../../shared/api/crawl-jobs.js';
import { UsageError } from '../../shared/errors.js';

test('a job takes its own settings, typed and checked', () => {
  assert.deepEqual(checkJobOptions({ maxPages: 5, include: ['*/blog/*'], resume: true }), { maxPages: 5, include: ['*/blog/*'], resume: true });
  assert.deepEqual(checkJobOptions(undefined), {});
  assert.ok(JOB_SETTINGS.includes('deny') && !JOB_SETTINGS.includes('data' as never));
});

test('a misspelt setting, one the server keeps, or a bad value is refused by name', () => {
  assert.throws(
    () => checkJobOptions({ maxPagez: 5 }),
    (err: unknown) => err instanceof UsageError && /"maxPagez" is not a setting a crawl job may choose/.test(err.message),
  );
  assert.throws(() => checkJobOptions({ data: '/etc' }), /"data" is not a setting a crawl job may choose/);
  assert.throws(() => checkJobOptions({ allowPrivateNetwork: true }), /"allowPrivateNetwork" is not a setting/);
  assert.throws(() => checkJobOptions({ maxPages: -1 }), /maxPages:/);
  assert.throws(() => checkJobOptions({ deny: ['/(unclosed/'] }), /deny/);
});

test('the embedded launcher checks at its own door: nothing is queued for a refused job', () => {
  let crawled = 0;
  const jobs = new CrawlJobs(async () => {
    crawled++;
    throw new Error('not reached');
  }, {});
  assert.throws(() => jobs.start(['http://a.test/'], { maxPagez: 3 } as never), /"maxPagez" is not a setting a crawl job may choose/);
  assert.equal(crawled, 0);
});
