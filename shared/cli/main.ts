#!/usr/bin/env node
import { printable, printableJson } from './terminal-text.js';
import { pathToFileURL } from 'node:url';
import { LOG_FORMATS } from '../log/logger.js';
import { tuneRuntime } from './runtime.js';
import { exitWhenDone } from './exit.js';
import { UsageError, errorMessage } from '../errors.js';
import { helpText, parseCommandLine, resolveSettings } from './args.js';
import { COMMANDS, commandHelp, didYouMean, NEEDS_DATA } from './usage.js';
import { version } from '../util/version.js';
import { requireDataDir } from '../store/local/open-local.js';
import { crawlCommand, crawlExitCode } from './crawl-command.js';
import { statusCommand } from './status-command.js';
import { extractCommand } from './extract-command.js';
import { graphCommand } from './graph-command.js';
import { liveStatus, type StatusStream } from './live-status.js';
import { doctorCommand, rebuildCommand } from './doctor-command.js';
import { exportCommand, historyCommand, replayCommand, webhooksCommand } from './data-commands.js';
import { openStore } from '../library/store.js';
import { changesCommand, type ChangesFlags } from './changes-command.js';
import type { ServeFlags } from './serve-command.js';
import { fetchCommand, socialCommand, type FetchFlags } from './fetch-command.js';
import { selectCommand, type SelectFlags } from './select-command.js';
import { enrichCommand, enrichExitCode, indexCommand, searchCommand, type SearchFlags } from './search-commands.js';

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

/** Runs the CLI and returns the exit code: 0 ok, 1 crawl failed, 2 bad input. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { command, positionals, flags } = parseCommandLine(argv);
    if (flags.version || command === 'version') {
      console.log(`trawl ${version()}`);
      return 0;
    }
    if (flags.help || command === 'help') {
      console.log((command !== 'help' && commandHelp(command)) || helpText());
      return 0;
    }
    if (!COMMANDS[command])
      throw new UsageError(
        `unknown command ${JSON.stringify(command)}${didYouMean(command, Object.keys(COMMANDS))}: use ${Object.keys(COMMANDS).join(', ')} (trawl --help)`,
      );
    const logFormat = flags['log-format'];
    if (logFormat !== undefined) {
      if (!(LOG_FORMATS as readonly unknown[]).includes(logFormat)) throw new UsageError(`--log-format ${String(logFormat)}: use json or text`);
      // The loggers the command makes read it (createLogger's default).
      env.TRAWL_LOG_FORMAT = String(logFormat);
      process.env.TRAWL_LOG_FORMAT = String(logFormat);
    }
    const settings = resolveSettings(flags, env);
    // A read command on a directory no crawl wrote says so, and creates nothing there.
    const startsCrawls = command === 'serve' && Boolean(flags['write-token'] ?? env.TRAWL_API_WRITE_TOKEN);
    if (NEEDS_DATA.has(command) && !startsCrawls) requireDataDir(settings.data);
    const json = Boolean(flags.json) || ['1', 'true', 'yes'].includes((env.TRAWL_JSON ?? '').toLowerCase());
    // Lines for people carry crawled text: its control characters are escaped (JSON lines escape them already).
    const out = (line: string) => process.stdout.write(`${json ? printableJson(line) : printable(line)}\n`);
    if (command === 'crawl') {
      const tty = process.stderr.isTTY && !json;
      // Log lines and printed lines clear the progress line first, and it is drawn again after them.
      const live = tty
        ? liveStatus(process.stderr as unknown as StatusStream, process.stdout.isTTY ? [process.stdout as unknown as StatusStream] : [])
        : undefined;
      try {
        const outcome = await crawlCommand(positionals, settings, {
          out,
          err: (line) => process.stderr.write(`trawl: ${printable(line)}\n`),
          json,
          env,
          resumeCommand: resumeCommandOf(argv, positionals),
          newRun: Boolean(flags['new-run']),
          status: live && ((line) => live.set(printable(line))),
          onSignal: (stop) => {
            for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, stop);
          },
        });
        return crawlExitCode(outcome);
      } finally {
        live?.restore();
      }
    }
    if (command === 'status') {
      await statusCommand(settings.data, json, out);
      return 0;
    }
    if (command === 'extract') {
      await extractCommand(positionals, flags as { file?: string; url?: string }, settings, json, out);
      return 0;
    }
    if (command === 'graph') {
      const store = openStore(settings.data);
      try {
        const nothing = await graphCommand(store, positionals, parseLimit(flags.limit), json, out);
        if (nothing === undefined) return 0;
        process.stderr.write(`trawl: ${nothing}\n`);
        return 1;
      } finally {
        await store.close();
      }
    }
    if (command === 'export') {
      await exportCommand(settings.data, flags as { format?: string; run?: string; output?: string }, { out, stream: process.stdout });
      return 0;
    }
    if (command === 'replay') {
      const report = await replayCommand(settings, flags as { reextract?: boolean; run?: string }, json, out);
      return report.failed.length > 0 ? 1 : 0;
    }
    if (command === 'history') {
      await historyCommand(settings.data, positionals[0], json, out);
      return 0;
    }
    if (command === 'changes') {
      await changesCommand(settings.data, flags as ChangesFlags, json, out);
      return 0;
    }
    if (command === 'webhooks') {
      const failed = await webhooksCommand(settings.data, { failed: Boolean(flags.failed), limit: parseLimit(flags.limit) }, json, out);
      return failed > 0 ? 1 : 0;
    }
    if (command === 'doctor' && flags.rebuild) {
      const result = await rebuildCommand(settings.data, json, out);
      return result.failed.length ? 1 : 0;
    }
    if (command === 'doctor') {
      const report = await doctorCommand(settings.data, flags as { repair?: boolean }, json, out);
      return report.problems.length && !report.repaired ? 1 : 0;
    }
    // The progress line of enrich and index, kept apart from the lines printed meanwhile.
    const live =
      (command === 'enrich' || command === 'index') && process.stderr.isTTY && !json
        ? liveStatus(process.stderr as unknown as StatusStream, process.stdout.isTTY ? [process.stdout as unknown as StatusStream] : [])
        : undefined;
    const io = {
      out,
      json,
      env,
      status: live && ((line: string) => live.set(printable(line))),
      onSignal: (stop: () => void) => {
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, stop);
      },
    };
    if (command === 'enrich') {
      try {
        const result = await enrichCommand(settings, Boolean(flags.stale), io);
        return enrichExitCode(result);
      } finally {
        live?.restore();
      }
    }
    if (command === 'search') {
      // No hit is exit 1, as grep's no match: a script tells "nothing found" from "found".
      const result = await searchCommand(settings, positionals, flags as SearchFlags, {
        ...io,
        err: (line) => process.stderr.write(`trawl: ${printable(line)}\n`),
      });
      return result.hits.length > 0 ? 0 : 1;
    }
    if (command === 'index') {
      try {
        const { report, after } = await indexCommand(settings, flags as { check?: boolean; reconcile?: boolean }, io);
        return (after ?? report).ok ? 0 : 1;
      } finally {
        live?.restore();
      }
    }
    if (command === 'fetch') {
      await fetchCommand(positionals, flags as FetchFlags, settings, json, out);
      return 0;
    }
    if (command === 'social') {
      await socialCommand(positionals, flags as FetchFlags, settings, json, out);
      return 0;
    }
    if (command === 'select') {
      await selectCommand(positionals, flags as SelectFlags, settings, json, out);
      return 0;
    }
    if (command === 'mcp') {
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
      transport.onerror = (err) => {
        process.stderr.write(`trawl mcp: ${errorMessage(err)}\n`);
        if (/exceeded maximum size/.test(err.message)) tooLarge = true;
      };
      await server.connect(transport);
      await closed;
      await jobs.idle();
      if (tooLarge) {
        process.stderr.write('trawl mcp: stopped: a message was over 10 MB, the most one message may be; the client should send less at once\n');
        return 1;
      }
      return 0;
    }
    if (command === 'serve') {
      const { startServer } = await import('./serve-command.js');
      const server = await startServer(settings, flags as ServeFlags, env);
      out(`trawl: serving ${settings.data} at ${server.url} (the API: ${server.url}openapi.json); Ctrl-C stops`);
      await new Promise<void>((resolve) => {
        for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
      });
      await server.close();
      return 0;
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}: see trawl --help`);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`trawl: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`trawl: ${errorMessage(err)}\n`);
    return 1;
  }
}

/** Piped into `head`, the reader goes away: that is the end of the output, not an error. */
export function endQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      // A full disk under `> file`, a closed terminal: said once, plainly, with no stack.
      const why = err.code === 'ENOSPC' ? 'the disk it goes to is full' : err.message;
      process.stderr.write(`trawl: cannot write the output: ${why}${stream === process.stdout ? ' (trawl export --output FILE writes whole or not at all)' : ''}\n`);
      process.exit(1);
    });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  tuneRuntime(process.argv.slice(2));
  endQuietlyOnClosedPipe();
  exitWhenDone(main(process.argv.slice(2)));
}
