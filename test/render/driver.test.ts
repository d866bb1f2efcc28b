import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPuppeteer, PUPPETEER_MISSING } from '../../shared/render/puppeteer.js';
import { RenderError } from '../../shared/errors.js';

test('without puppeteer-core (an optional dependency) a render fails as browser-missing, saying how to get it or go without', async () => {
  const missing = 'trawl-test-no-such-driver';
  await assert.rejects(
    loadPuppeteer(() => import(missing)),
    (err: unknown) => err instanceof RenderError && err.failure === 'browser-missing' && err.message === PUPPETEER_MISSING,
  );
  assert.match(PUPPETEER_MISSING, /npm install puppeteer-core/);
  assert.match(PUPPETEER_MISSING, /--render never/);
  // Any other failure of the driver is its own.
  await assert.rejects(
    loadPuppeteer(() => Promise.reject(new Error('broken driver'))),
    /broken driver/,
  );
  // Installed (as here), the driver is the real one.
  assert.equal(typeof (await loadPuppeteer()).launch, 'function');
});
