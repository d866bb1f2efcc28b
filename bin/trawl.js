#!/usr/bin/env node
// Runs the built CLI (npm run build); during development use `npm run trawl -- …`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/shared/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(built))) {
  process.stderr.write('trawl: not built yet: run npm run build (or use npm run trawl -- <args>)\n');
  process.exit(2);
}
// A long crawl starts itself again with glibc's and V8's memory settings (shared/cli/runtime.ts).
const { tuneRuntime } = await import(new URL('../dist/shared/cli/runtime.js', import.meta.url).href);
tuneRuntime(process.argv.slice(2));
const { main, endQuietlyOnClosedPipe } = await import(built.href);
endQuietlyOnClosedPipe();
process.exitCode = await main(process.argv.slice(2));
