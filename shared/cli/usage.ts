import { SETTINGS } from '../config/settings.js';
import { commandFlagLine } from './command-flags.js';

/** The commands, each with its usage line, the flags it reads beyond the settings, and an example. */
export const COMMANDS: Record<string, { usage: string; flags: string[]; example: string; settings?: 'all' | 'data' }> = {
  crawl: {
    usage: 'trawl crawl <seed…> [flags]   crawl from the seed URLs (or search queries and accounts) into the data directory',
    flags: ['json', 'new-run'],
    example: 'trawl crawl https://example.com/ --max-pages 200',
    settings: 'all',
  },
  status: { usage: 'trawl status [--data DIR]   summarise a data directory', flags: ['json'], example: 'trawl status --data ./trawl-data', settings: 'data' },
  extract: {
    usage: 'trawl extract <url> | --file page.html --url URL   the whole extraction of one page',
    flags: ['file', 'url', 'json'],
    example: 'trawl extract https://example.com/post',
    settings: 'all',
  },
  graph: {
    usage: 'trawl graph top|inlinks <url>|outlinks <url>|unfetched [--limit N]   link graph queries',
    flags: ['limit', 'json'],
    example: 'trawl graph inlinks https://example.com/about',
    settings: 'data',
  },
  export: {
    usage:
      'trawl export --format jsonl | wacz | parquet [--run N] [--output FILE]   pages, edges and interactions as JSON lines; the archive as a WACZ; its captures as a Parquet index',
    flags: ['format', 'run', 'output'],
    example: 'trawl export --format wacz --output crawl.wacz',
    settings: 'data',
  },
  replay: {
    usage: 'trawl replay --reextract [--run N]   re-run extraction over the archive, no network',
    flags: ['reextract', 'run', 'json'],
    example: 'trawl replay --reextract',
    settings: 'data',
  },
  history: {
    usage: 'trawl history <url>   every fetch of a URL, with content drift',
    flags: ['json'],
    example: 'trawl history https://example.com/',
    settings: 'data',
  },
  changes: {
    usage: 'trawl changes [--run N] [--since DATE] [--kind K…] [--path /P…] [--diff] [--limit N]   what changed since the run before',
    flags: ['run', 'since', 'kind', 'path', 'diff', 'limit', 'json'],
    example: 'trawl changes --kind changed,removed --diff',
    settings: 'data',
  },
  doctor: {
    usage: 'trawl doctor [--repair | --rebuild]   check the data directory; salvage a damaged database, or make a new one from the WARC files',
    flags: ['repair', 'rebuild', 'json'],
    example: 'trawl doctor --repair',
    settings: 'data',
  },
  enrich: {
    usage: 'trawl enrich [--stale]   summaries, tags, embeddings and the search index',
    flags: ['stale', 'json'],
    example: 'trawl enrich --provider local',
    settings: 'all',
  },
  search: {
    usage: 'trawl search "<query>" [--tag T…] [--domain D] [--lang L] [--since DATE] [--until DATE] [--limit N] [--mode hybrid|text|vector]',
    flags: ['tag', 'domain', 'lang', 'since', 'until', 'limit', 'mode', 'json'],
    example: 'trawl search "pricing plans" --limit 5',
    settings: 'data',
  },
  index: {
    usage: 'trawl index --check | --reconcile   compare the store with the vector index; repair',
    flags: ['check', 'reconcile', 'json'],
    example: 'trawl index --check',
    settings: 'data',
  },
  serve: {
    usage: 'trawl serve [--host 127.0.0.1] [--port 7373] [--token T] [--allowed-host NAME]   the HTTP API and the web UI',
    flags: ['host', 'port', 'token', 'allowed-host', 'write-token', 'webhook', 'readers'],
    example: 'trawl serve --port 7373',
    // The crawls it starts keep the server's settings (politeness) and start from its other values.
    settings: 'all',
  },
  webhooks: {
    usage: 'trawl webhooks [--failed]   the webhook deliveries of the crawls trawl serve ran, newest first',
    flags: ['failed', 'limit', 'json'],
    example: 'trawl webhooks --failed',
    settings: 'data',
  },
  fetch: {
    usage: 'trawl fetch <target> [--limit N] [--replay]   a URL, a search query or an account, archived',
    flags: ['limit', 'replay', 'json'],
    example: 'trawl fetch "search:fire sprinkler inspection"',
    settings: 'all',
  },
  social: {
    usage: 'trawl social <platform> <topic…> [--limit N] [--replay]   hashtag or topic search on a platform',
    flags: ['limit', 'replay', 'json'],
    example: 'trawl social bluesky "#housing"',
    settings: 'all',
  },
  mcp: {
    usage:
      'trawl mcp [--data DIR] [--allow-private-network]   a Model Context Protocol server over stdio: crawl, crawl_status, search, get_page, links, fetch_page',
    flags: [],
    example: 'trawl mcp --data ./trawl-data',
    settings: 'all',
  },
  select: {
    usage: 'trawl select <homepage> [--profile P] [--query Q] [--cap 4] [--no-preview]   the pages that explain what a site does',
    flags: ['cap', 'no-preview', 'json'],
    example: 'trawl select https://example.com/ --cap 4',
    settings: 'all',
  },
};

/** Commands that only read a data directory (or enrich one a crawl wrote): they never create one. */
export const NEEDS_DATA = new Set(['status', 'graph', 'export', 'replay', 'history', 'changes', 'enrich', 'search', 'index', 'serve', 'webhooks']);

/** Edit distance (Levenshtein), for "did you mean". */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/** The nearest of `known` to `given` within a small distance, as " (did you mean X?)"; empty when none is near. */
export function didYouMean(given: string, known: Iterable<string>, prefix = ''): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = distance(given, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(given.length / 4)) ? ` (did you mean ${prefix}${best}?)` : '';
}

/** One command's help: its usage, its own flags, the settings it reads, and an example. */
export function commandHelp(command: string): string | undefined {
  const c = COMMANDS[command];
  if (!c) return undefined;
  const lines = [`Usage: ${c.usage}`, '', `Example: ${c.example}`, ''];
  if (c.flags.length) lines.push('Flags:', ...c.flags.map(commandFlagLine));
  if (c.settings === 'data') lines.push('Settings: --data DIR (TRAWL_DATA) [default: ./trawl-data]');
  if (c.settings === 'all') {
    lines.push('Settings (each also read from the environment variable shown):');
    for (const s of Object.values(SETTINGS))
      if (s.flag) lines.push(`  --${s.flag}${s.type === 'boolean' ? '' : ' <value>'}`.padEnd(34) + `${s.help} (${s.env})`);
  }
  return lines.join('\n');
}

/**
 * `--max-pages -5` is a value that looks like a flag to node's parser: join such negative numbers
 * to their flag (`--max-pages=-5`) so the settings table says what range it wants.
 */
export function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (/^--[a-z][a-z0-9-]*$/.test(a) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}
