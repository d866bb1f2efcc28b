// The public surface is reviewed like code. docs/api-report.md lists every exported name
// of `trawl` and `trawl/cdk` with its type; this fails when the source no longer matches it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { apiReport, REPORT } from '../scripts/api-report.js';

test('docs/api-report.md is the public surface of the source (npm run api:report rewrites it)', () => {
  const written = readFileSync(REPORT, 'utf8');
  const now = apiReport();
  if (written !== now) {
    const a = written.split('\n');
    const b = now.split('\n');
    const first = b.findIndex((line, i) => line !== a[i]);
    assert.fail(
      `the public API changed at line ${first + 1} of docs/api-report.md:\n  report: ${a[first] ?? '(end)'}\n  source: ${b[first] ?? '(end)'}\nreview the change, then run npm run api:report and commit the report`,
    );
  }
});
