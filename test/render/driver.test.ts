import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDriver, DRIVER_MISSING } from '../../shared/render/driver.js';
import { RenderError } from '../../shared/errors.js';

test('without puppeteer-core (an optional dependency) a render fails as browser-missing, saying how to get it or go without', async () => {
  const missing = 'trawl-test-no-such-driver';
  await assert.rejects(
    loadDriver(() => import(missing)),
    (err: unknown) => err instanceof RenderError && err.failure === 'browser-missing' && err.message === DRIVER_MISSING,
  );
  assert.match(DRIVER_MISSING, /npm install puppeteer-core/);
  assert.match(DRIVER_MISSING, /--render never/);
  // Any other failure of the driver is its own.
  await assert.rejects(
    loadDriver(() => Promise.reject(new Error('broken driver'))),
    /broken driver/,
  );
  // Installed (as here), the driver is the real one.
  assert.equal(typeof (await loadDriver()).launch, 'function');
});
