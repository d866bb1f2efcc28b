import type { ParseArgsConfig } from 'node:util';

/** A flag of single commands: how it is parsed and its line in the command's help. */
interface CommandFlag {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** What the value is, in the help (`--run <N>`); none for a boolean. */
  value?: string;
  help: string;
}

/** Flags of single commands (not crawl settings): `extract --file/--url`, `export --format`, `replay --reextract`, … */
export const COMMAND_FLAG_TABLE: Record<string, CommandFlag> = {
  help: { type: 'boolean', short: 'h', help: 'this help' },
  file: { type: 'string', value: 'PATH', help: 'a saved HTML page to extract instead of fetching one' },
  url: { type: 'string', value: 'URL', help: 'the address the saved page came from (its links resolve against it)' },
  format: { type: 'string', value: 'jsonl|wacz|parquet', help: 'what to export: JSON lines, the archive as a WACZ, or its capture index as Parquet' },
  output: { type: 'string', short: 'o', value: 'FILE', help: 'write to FILE (whole or not at all: written aside, then renamed) instead of stdout' },
  reextract: { type: 'boolean', help: 'extract every archived page again, with no network' },
  repair: { type: 'boolean', help: 'salvage a damaged database into a new one, keeping the old one aside' },
  rebuild: { type: 'boolean', help: 'make a new database from the WARC files alone' },
  json: { type: 'boolean', help: 'print JSON instead of text' },
  'new-run': { type: 'boolean', help: 'start a new crawl though the last run was interrupted (that run is abandoned)' },
  run: { type: 'string', value: 'N', help: 'one run, by its number (trawl status lists them)' },
  limit: { type: 'string', value: 'N', help: 'at most N results' },
  stale: { type: 'boolean', help: 'only pages whose enrichment is missing or older than their content' },
  failed: { type: 'boolean', help: 'only deliveries that failed' },
  tag: { type: 'string', multiple: true, value: 'T', help: 'only pages with this tag (repeat for more)' },
  domain: { type: 'string', value: 'D', help: 'only pages of this domain' },
  lang: { type: 'string', value: 'L', help: 'only pages in this language (ISO 639-1, such as en)' },
  since: { type: 'string', value: 'DATE', help: 'only what was fetched on or after DATE (2026-01-31 or an ISO time)' },
  until: { type: 'string', value: 'DATE', help: 'only what was fetched before DATE' },
  mode: { type: 'string', value: 'hybrid|text|vector', help: 'how to search: both indexes fused (default), words only, or meaning only' },
  check: { type: 'boolean', help: 'compare the store with the vector index and report what differs' },
  reconcile: { type: 'boolean', help: 'repair the vector index so it matches the store' },
  host: { type: 'string', value: 'ADDRESS', help: 'the address to listen on (default 127.0.0.1)' },
  port: { type: 'string', value: 'N', help: 'the port to listen on (default 7373; 0 picks a free one)' },
  token: { type: 'string', value: 'T', help: 'a bearer token every request must carry' },
  'allowed-host': { type: 'string', multiple: true, value: 'NAME', help: 'a Host header the server answers to beyond loopback (repeat for more)' },
  'write-token': { type: 'string', value: 'T', help: 'the bearer token that may start and stop crawls' },
  readers: { type: 'string', value: 'N', help: 'reader threads answering searches and reads' },
  webhook: { type: 'string', multiple: true, value: 'URL', help: 'a receiver told of every crawl, signed (repeat for more)' },
  version: { type: 'boolean', short: 'v', help: "trawl's version" },
  'log-format': { type: 'string', value: 'text|json', help: 'how progress and warnings are written to stderr' },
  cap: { type: 'string', value: 'N', help: 'at most N pages selected' },
  replay: { type: 'boolean', help: 'answer from the archive, with no network' },
  'no-preview': { type: 'boolean', help: "choose from links alone, without reading candidates' heads" },
  kind: { type: 'string', multiple: true, value: 'K', help: 'only changes of this kind: added, changed, removed, … (repeat or comma-separate)' },
  path: { type: 'string', multiple: true, value: '/P', help: 'only URLs under this path (repeat for more)' },
  diff: { type: 'boolean', help: "show each changed page's text diff" },
};

/** The table as node's parseArgs takes it. */
export const COMMAND_FLAGS: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
  Object.entries(COMMAND_FLAG_TABLE).map(([name, { type, short, multiple }]) => [
    name,
    { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
  ]),
);

/** A flag's line in a command's help: `  --run <N>   one run, by its number …`. */
export function commandFlagLine(name: string): string {
  const f = COMMAND_FLAG_TABLE[name];
  if (!f) throw new Error(`no help for --${name}: add it to COMMAND_FLAG_TABLE`);
  return `  --${name}${f.value ? ` <${f.value}>` : ''}`.padEnd(34) + f.help;
}
