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
import { RUNNERS } from './command-runners.js';

export { resumeCommandOf } from './command-runners.js';

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
    const run = RUNNERS[command];
    if (run) return await run({ argv, command, positionals, flags, settings, env, json, out });
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
      process.stderr.write(
        `trawl: cannot write the output: ${why}${stream === process.stdout ? ' (trawl export --output FILE writes whole or not at all)' : ''}\n`,
      );
      process.exit(1);
    });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  tuneRuntime(process.argv.slice(2));
  endQuietlyOnClosedPipe();
  exitWhenDone(main(process.argv.slice(2)));
}
