import { UsageError } from '../errors.js';
import { defaultSettings, SETTINGS, settingSpec, type CrawlSettings, type SettingName } from './settings.js';

/* Reading settings from flags, the environment and plain objects, each value checked against the settings table. */

/** Parses one value for a setting; `source` names where it came from (a flag, a variable, a file). */
export function parseSetting(name: SettingName, value: unknown, source: string): unknown {
  const s = settingSpec(name);
  const parsed = s.schema.safeParse(value);
  if (!parsed.success) {
    const detail = parsed.error.issues[0]?.code === 'custom' ? `: ${parsed.error.issues[0].message}` : '';
    throw new UsageError(`invalid value ${JSON.stringify(value)} for ${source}: expected ${s.expects} (${s.help})${detail}`);
  }
  return parsed.data;
}

/** Checks relations between settings that no single range can say. */
export function checkSettings(settings: CrawlSettings, where: string): CrawlSettings {
  if (settings.backoffBaseMs > settings.backoffMaxMs) {
    throw new UsageError(
      `${where}: backoffBaseMs (${settings.backoffBaseMs}) is larger than backoffMaxMs (${settings.backoffMaxMs}): raise the maximum or lower the base`,
    );
  }
  return settings;
}

export type Env = Record<string, string | undefined>;

/** A raw value from a flag or the environment, coerced as its setting's type asks (lists split on commas, booleans from words). */
function coerce(name: SettingName, raw: unknown): unknown {
  const s = settingSpec(name);
  if (s.type === 'list' && typeof raw === 'string')
    return raw
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
  if (s.type === 'boolean' && typeof raw === 'string') return ['1', 'true', 'yes'].includes(raw.toLowerCase());
  return raw;
}

/**
 * The settings of a crawl: defaults, then `TRAWL_*` environment variables, then the given values
 * (flags, library options); each validated once, here. `source` names a value in error messages.
 */
export function resolveSettings(values: Partial<Record<SettingName, unknown>>, env: Env, source: (name: SettingName) => string): CrawlSettings {
  const out = defaultSettings() as Record<string, unknown>;
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const s = settingSpec(name);
    const fromEnv = env[s.env];
    if (fromEnv !== undefined && fromEnv !== '') out[name] = parseSetting(name, coerce(name, fromEnv), s.env);
    if (values[name] !== undefined) out[name] = parseSetting(name, coerce(name, values[name]), source(name));
  }
  return checkSettings(out as CrawlSettings, 'settings');
}

/**
 * Settings from a plain object (a crawl of `crawls.json`, a stored run's config): every key must
 * be a setting and every value must fit its schema; the rest are defaults. `where` names the
 * source in error messages.
 */
export function settingsFrom(values: Record<string, unknown>, where: string): CrawlSettings {
  const out = defaultSettings() as Record<string, unknown>;
  for (const [name, value] of Object.entries(values)) {
    if (!(name in SETTINGS)) throw new UsageError(`${where}: unknown setting "${name}"; known settings: ${Object.keys(SETTINGS).join(', ')}`);
    out[name] = parseSetting(name as SettingName, value, `${where}: setting "${name}"`);
  }
  return checkSettings(out as CrawlSettings, where);
}
