import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';
import { SETTINGS, settingSpec, type CrawlSettings, type SettingName } from '../config/settings.js';
import { resolveSettings as resolveFromSources } from '../config/resolve.js';
import { COMMANDS, didYouMean, joinNegativeValues } from './usage.js';
import { COMMAND_FLAGS } from './command-flags.js';
export { COMMAND_FLAGS } from './command-flags.js';

/** Settings from defaults, then `TRAWL_*` environment variables, then flags. */
export function resolveSettings(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): CrawlSettings {
  const values: Partial<Record<SettingName, unknown>> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const flag = settingSpec(name).flag;
    if (flag && flags[flag] !== undefined) values[name] = flags[flag];
  }
  return resolveFromSources(values, env, (name) => `--${settingSpec(name).flag}`);
}

/** Every flag name the CLI knows. */
export function knownFlags(): string[] {
  return [...Object.keys(COMMAND_FLAGS), ...Object.values(SETTINGS).flatMap((s) => (s.flag ? [s.flag] : []))];
}

/** The node:util parseArgs options derived from the settings table. */
export function flagOptions(): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = { ...COMMAND_FLAGS };
  for (const s of Object.values(SETTINGS)) {
    if (!s.flag) continue;
    options[s.flag] = s.type === 'boolean' ? { type: 'boolean' } : s.type === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
  }
  return options;
}

export interface ParsedCommand {
  command: string;
  positionals: string[];
  flags: Record<string, unknown>;
}

/** Splits argv into a command, positionals and flags; unknown flags are a usage error. */
export function parseCommandLine(argv: string[]): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({ args: joinNegativeValues(argv), options: flagOptions(), allowPositionals: true, strict: true });
    const [command = 'help', ...rest] = positionals;
    return { command, positionals: rest, flags: values as Record<string, unknown> };
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/\. To specify a positional.*$/s, '') : String(err);
    const unknown = /Unknown option '--([^']+)'/.exec(message)?.[1];
    const hint = unknown ? didYouMean(unknown, knownFlags(), '--') : '';
    throw new UsageError(`${message}${hint}: see trawl --help for the flags`, { cause: err });
  }
}

export function helpText(): string {
  const lines = [
    'trawl — a polite web crawler',
    '',
    'Usage:',
    // Every command, from the same table as each command's own help.
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
    '',
    'Output: --json prints JSON lines (TRAWL_JSON); --limit N for graph queries.',
    'Logs: on stderr, text on a terminal and JSON lines otherwise; --log-format json|text chooses (TRAWL_LOG_FORMAT).',
    '',
    'Flags (each also readable from the environment variable shown):',
  ];
  for (const s of Object.values(SETTINGS)) {
    if (!s.flag) continue;
    const arg = s.type === 'boolean' ? '' : ' <value>';
    const def =
      s.type === 'boolean'
        ? ''
        : ` [default: ${Array.isArray(s.default) ? (s.default.length > 4 ? `${s.default.length} names` : s.default.join(',') || 'none') : String(s.default)}]`;
    lines.push(`  --${s.flag}${arg}`.padEnd(34) + `${s.help}${def} (${s.env})`);
  }
  return lines.join('\n');
}
