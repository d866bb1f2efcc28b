// The dateline names are the runtime's own Intl (CLDR) data, generated once into a file so that no
// thread loads ICU's data of 22 locales to read a date: the file must match what the runtime says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { datelineSource } from '../../scripts/gen-datelines.js';
import { DATELINE_NAMES } from '../../shared/extract/dateline-names.js';
import { isDateline } from '../../shared/extract/dateline.js';

test("the dateline names are this runtime's month and weekday names of the 22 languages", () => {
  const file = readFileSync(new URL('../../shared/extract/dateline-names.ts', import.meta.url), 'utf8');
  const generated = datelineSource();
  // Generated on Node 20; a later Node's CLDR may spell a few abbreviations otherwise, never many.
  if (process.versions.node.startsWith('20.')) assert.equal(file, generated, 'shared/extract/dateline-names.ts is stale: run npm run gen:datelines');
  else {
    const now = new Set(JSON.parse(`[${/= \[([\s\S]*?)\];/.exec(generated.split('DATELINE_NAMES')[1]!)![1]!.trim().replace(/,$/, '')}]`) as string[]);
    const kept = DATELINE_NAMES.filter((n) => now.has(n)).length;
    assert.ok(kept / DATELINE_NAMES.length > 0.95, `only ${kept} of ${DATELINE_NAMES.length} names are this runtime's`);
  }
  for (const name of ['mai', 'maja', 'мая', 'donnerstag', 'décembre', 'settembre']) assert.ok(DATELINE_NAMES.includes(name), name);
});

test('datelines in several languages are recognised from the names, prose is not', () => {
  for (const line of ['Published 4 May 2021, 17:13', 'Donnerstag, 31. Mai 2012', 'Publikacja: 4 maja 2021', '15 мая 2019', 'mardi 3 décembre 2019 à 10:00'])
    assert.ok(isDateline(line), line);
  assert.ok(!isDateline('In May the committee met to discuss the harbour plan and its costs for the city.'));
});
