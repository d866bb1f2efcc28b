import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SETTINGS, type SettingName } from '../../shared/config/settings.js';
import type { CrawlSettingsOptions } from '../../shared/library/settings-options.js';
import { OPTIONS_FILE, optionsSource } from '../../scripts/gen-options.js';

// Compile-time: the options are exactly the settings, no more, no less.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameKeys: Same<keyof CrawlSettingsOptions, SettingName> = true;

test('the typed options are generated from the settings table and up to date (npm run gen:options)', () => {
  assert.equal(sameKeys, true);
  assert.equal(readFileSync(OPTIONS_FILE, 'utf8'), optionsSource(), 'shared/library/settings-options.ts is stale: run npm run gen:options');
  const text = readFileSync(OPTIONS_FILE, 'utf8');
  for (const [name, s] of Object.entries(SETTINGS)) {
    assert.match(text, new RegExp(`@default [^\\n]+\\n\\s+\\*/\\n\\s+${name}\\?:`), `${name} has its @default`);
    assert.ok(text.includes(`\`${s.env}\``), `${name} names its environment variable`);
  }
});
