// Each command of the CLI as one function from its parsed command line to its exit code: `main`
// parses, checks and dispatches; what a command prints and exits with is here.
import type { CrawlSettings } from '../config/settings.js';
import { UsageError, errorMessage } from '../errors.js';
import { openStore } from '../library/store.js';
import { printable } from './terminal-text.js';
import { crawlCommand, crawlExitCode } from './crawl-command.js';
import { statusCommand } from './status-command.js';
import { extractCommand } from './extract-command.js';
import { graphCommand } from './graph-command.js';
import { liveStatus, type StatusStream } from './live-status.js';
import { doctorCommand, rebuildCommand } from './doctor-command.js';
import { exportCommand, historyCommand, replayCommand, webhooksCommand } from './data-commands.js';
import { changesCommand, type ChangesFlags } from './changes-command.js';
import type { ServeFlags } from './serve-command.js';
import { fetchCommand, socialCommand, type FetchFlags } from './fetch-command.js';
import { selectCommand, type SelectFlags } from './select-command.js';
import { enrichCommand, enrichExitCode, indexCommand, searchCommand, type SearchFlags } from './search-commands.js';

/** A parsed, checked command line: what every runner gets. */
export interface CommandRun {
  argv: string[];
  command: string;
  positionals: string[];
  flags: Record<string, unknown>;
  settings: CrawlSettings;
  env: NodeJS.ProcessEnv;
  json: boolean;
  /** A line for stdout (control characters escaped). */
  out: (line: string) => void;
}

/** The command line that resumes a crawl: the same flags, `--resume` instead of the seeds. */
export function resumeCommandOf(argv: readonly string[], seeds: readonly string[]): string {
  const rest = argv.filter((a, i) => !(i === argv.indexOf('crawl') || a === '--resume' || a === '--new-run' || seeds.includes(a)));
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['trawl', 'crawl', '--resume', ...rest].map(quote).join(' ');
}

function parseLimit(raw: unknown): number {
  if (raw === undefined) return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`invalid value ${JSON.stringify(raw)} for --limit: expected a whole number of at least 1`);
  return n;
}

/** A line for stderr, as the CLI says problems: `trawl: …`. */
const err = (line: string) => void process.stderr.write(`trawl: ${printable(line)}\n`);

/** Ctrl-C and SIGTERM both stop a command cleanly. */
const onSignal = (stop: () => void) => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, stop);
};

/**
 * A progress line on stderr when it is a terminal (and the output is not JSON): lines printed
 * meanwhile clear it first and have it drawn again after them. `run` gets its setter.
 */
async function withLiveStatus<T>(json: boolean, run: (status: ((line: string) => void) | undefined) => Promise<T>): Promise<T> {
  const live =
    process.stderr.isTTY && !json
      ? liveStatus(process.stderr as unknown as StatusStream, process.stdout.isTTY ? [process.stdout as unknown as StatusStream] : [])
      : undefined;
  try {
    return await run(live && ((line) => live.set(printable(line))));
  } finally {
    live?.restore();
  }
}

async function crawlRunner({ argv, positionals, flags, settings, env, json, out }: CommandRun): Promise<number> {
  const outcome = await withLiveStatus(json, (status) =>
    crawlCommand(positionals, settings, {
      out,
      err,
      json,
      env,
      resumeCommand: resumeCommandOf(argv, positionals),
      newRun: Boolean(flags['new-run']),
      status,
      onSignal,
    }),
  );
  return crawlExitCode(outcome);
}

async function graphRunner({ positionals, flags, settings, json, out }: CommandRun): Promise<number> {
  const store = openStore(settings.data);
  try {
    const nothing = await graphCommand(store, positionals, parseLimit(flags.limit), json, out);
    if (nothing === undefined) return 0;
    err(nothing);
    return 1;
  } finally {
    await store.close();
  }
}

async function doctorRunner({ flags, settings, json, out }: CommandRun): Promise<number> {
  if (flags.rebuild) return (await rebuildCommand(settings.data, json, out)).failed.length ? 1 : 0;
  const report = await doctorCommand(settings.data, flags as { repair?: boolean }, json, out);
  return report.problems.length && !report.repaired ? 1 : 0;
}

async function mcpRunner({ settings, env }: CommandRun): Promise<number> {
  // stdout carries the protocol: nothing else may print there.
  // The API and MCP modules load only for the commands that serve (a crawl does not carry them).
  const [{ createMcpServer }, { localMcpSource }, { StdioServerTransport }] = await Promise.all([
    import('../api/mcp.js'),
    import('../api/mcp-local.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const source = localMcpSource({ data: settings.data, allowPrivateNetwork: settings.allowPrivateNetwork, env, crawlDefaults: settings });
  const { jobs } = source;
  const server = createMcpServer(source);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  // What the transport cannot read is said on stderr (stdout is the protocol's); a message over
  // its buffer ends the session, and the exit code says so.
  let tooLarge = false;
  transport.onerror = (error) => {
    process.stderr.write(`trawl mcp: ${errorMessage(error)}\n`);
    if (/exceeded maximum size/.test(error.message)) tooLarge = true;
  };
  await server.connect(transport);
  await closed;
  await jobs.idle();
  if (!tooLarge) return 0;
  process.stderr.write('trawl mcp: stopped: a message was over 10 MB, the most one message may be; the client should send less at once\n');
  return 1;
}

async function serveRunner({ flags, settings, env, out }: CommandRun): Promise<number> {
  const { startServer } = await import('./serve-command.js');
  const server = await startServer(settings, flags as ServeFlags, env);
  out(`trawl: serving ${settings.data} at ${server.url} (the API: ${server.url}openapi.json); Ctrl-C stops`);
  await new Promise<void>((resolve) => onSignal(resolve));
  await server.close();
  return 0;
}

/** Each command's runner, by name. */
export const RUNNERS: Record<string, (run: CommandRun) => Promise<number>> = {
  crawl: crawlRunner,
  status: async ({ settings, json, out }) => (await statusCommand(settings.data, json, out), 0),
  extract: async ({ positionals, flags, settings, json, out }) => (
    await extractCommand(positionals, flags as { file?: string; url?: string }, settings, json, out),
    0
  ),
  graph: graphRunner,
  export: async ({ flags, settings, out }) => (
    await exportCommand(settings.data, flags as { format?: string; run?: string; output?: string }, { out, stream: process.stdout }),
    0
  ),
  replay: async ({ flags, settings, json, out }) =>
    (await replayCommand(settings, flags as { reextract?: boolean; run?: string }, json, out)).failed.length > 0 ? 1 : 0,
  history: async ({ positionals, settings, json, out }) => (await historyCommand(settings.data, positionals[0], json, out), 0),
  changes: async ({ flags, settings, json, out }) => (await changesCommand(settings.data, flags as ChangesFlags, json, out), 0),
  webhooks: async ({ flags, settings, json, out }) =>
    (await webhooksCommand(settings.data, { failed: Boolean(flags.failed), limit: parseLimit(flags.limit) }, json, out)) > 0 ? 1 : 0,
  doctor: doctorRunner,
  enrich: ({ flags, settings, env, json, out }) =>
    withLiveStatus(json, async (status) => enrichExitCode(await enrichCommand(settings, Boolean(flags.stale), { out, json, env, status, onSignal }))),
  // No hit is exit 1, as grep's no match: a script tells "nothing found" from "found".
  search: async ({ positionals, flags, settings, env, json, out }) =>
    (await searchCommand(settings, positionals, flags as SearchFlags, { out, json, env, onSignal, err })).hits.length > 0 ? 0 : 1,
  index: ({ flags, settings, env, json, out }) =>
    withLiveStatus(json, async (status) => {
      const { report, after } = await indexCommand(settings, flags as { check?: boolean; reconcile?: boolean }, { out, json, env, status, onSignal });
      return (after ?? report).ok ? 0 : 1;
    }),
  fetch: async ({ positionals, flags, settings, json, out }) => (await fetchCommand(positionals, flags as FetchFlags, settings, json, out), 0),
  social: async ({ positionals, flags, settings, json, out }) => (await socialCommand(positionals, flags as FetchFlags, settings, json, out), 0),
  select: async ({ positionals, flags, settings, json, out }) => (await selectCommand(positionals, flags as SelectFlags, settings, json, out), 0),
  mcp: mcpRunner,
  serve: serveRunner,
};
