// What a Lambda stage loads on first use must be inside its bundle (or shipped beside it): a Lambda
// has no node_modules but the AWS SDK, and a module loaded through createRequire is invisible to a
// bundler. Field extraction loads cheerio on first use; here it runs from a bundle built with the
// stages' esbuild settings, in a directory with no node_modules above it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';
import { externalModules, LAMBDA_BANNER } from '../../lib/stages.js';
import { tempDir } from '../../support/helpers.js';

test('field extraction (cheerio, loaded on first use) runs from a Lambda bundle with no node_modules', async () => {
  const dir = tempDir('trawl-bundle-');
  try {
    await build({
      stdin: {
        contents: `import { extractFields } from './shared/extract/fields.js';
import { fieldFromFlag } from './shared/extract/field-specs.js';
console.log(JSON.stringify(extractFields('<h1>Acme</h1><p class="price">$1,250.50</p>', 'https://a.test/', [fieldFromFlag('title=h1', 0), fieldFromFlag('price:number=.price', 1)])));`,
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      outfile: join(dir.dir, 'index.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node24',
      mainFields: ['module', 'main'],
      banner: { js: LAMBDA_BANNER },
      external: externalModules('extract-page'),
      logLevel: 'silent',
    });
    const r = spawnSync(process.execPath, [join(dir.dir, 'index.mjs')], { cwd: dir.dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { title: 'Acme', price: 1250.5 });
  } finally {
    dir.cleanup();
  }
});
