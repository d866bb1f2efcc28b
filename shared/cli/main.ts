#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { UsageError, errorMessage } from '../errors.js';
import { helpText, parseCommandLine, resolveSettings } from './args.js';
import { crawlCommand } from './crawl-command.js';
import { statusCommand } from './status-command.js';

/** Runs the CLI and returns the exit code: 0 ok, 1 crawl failed, 2 bad input. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const { command, positionals, flags } = parseCommandLine(argv);
    if (flags.help || command === 'help') {
      console.log(helpText());
      return 0;
    }
    const settings = resolveSettings(flags, env);
    const out = (line: string) => process.stdout.write(`${line}\n`);
    if (command === 'crawl') {
      const tty = process.stderr.isTTY && !settings.json;
      await crawlCommand(positionals, settings, {
        out,
        status: tty ? (line) => process.stderr.write(`\r\x1b[2K${line}`) : undefined,
        onSignal: (stop) => {
          for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, stop);
        },
      });
      return 0;
    }
    if (command === 'status') {
      await statusCommand(settings.data, settings.json, out);
      return 0;
    }
    throw new UsageError(`unknown command ${JSON.stringify(command)}: use crawl or status (trawl --help)`);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`trawl: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`trawl: ${errorMessage(err)}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
