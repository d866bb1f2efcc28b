import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RenderError } from '../errors.js';

/** Where a browser was found; `bundled` is the Chromium inside the `@sparticuz/chromium` package. */
export interface BrowserBinary {
  path: string;
  source: 'env' | 'system' | 'bundled';
}

/** The usual install locations, by platform: Debian/Ubuntu, Google Chrome, snaps, macOS applications. */
export const SYSTEM_BROWSERS: Record<string, string[]> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/lib/chromium/chromium',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/opt/google/chrome/chrome',
    '/snap/bin/chromium',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
  ],
  win32: ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe'],
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The bundled Chromium: `@sparticuz/chromium` inflates its Brotli-packed binary into the temp
 * directory on first use. Parallel processes (test workers) would race on that file, so the first
 * inflates it under a lock directory and the others wait.
 */
async function bundledChromium(binDir?: string): Promise<string | undefined> {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  let chromium: { executablePath(input?: string): Promise<string> };
  try {
    chromium = (await import('@sparticuz/chromium')).default;
  } catch {
    return undefined;
  }
  const target = join(tmpdir(), 'chromium');
  const lock = join(tmpdir(), 'trawl-chromium-inflate.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than two minutes was left by a process that died while inflating.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000 || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await chromium.executablePath(binDir ?? bundledBinDir());
  } catch (err) {
    // A half-written binary from a killed inflate is removed so the next attempt starts over.
    if (existsSync(target) && !executable(target)) rmSync(target, { force: true });
    throw err;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The `bin/` folder of the package: beside a Lambda bundle (`chromium-bin/`), else in node_modules. */
function bundledBinDir(): string | undefined {
  if (process.env.TRAWL_CHROMIUM_BIN) return process.env.TRAWL_CHROMIUM_BIN;
  const beside = join(dirname(fileURLToPath(import.meta.url)), 'chromium-bin');
  return existsSync(join(beside, 'chromium.br')) ? beside : undefined;
}

/**
 * Finds a browser: `CHROMIUM_PATH` or `CHROME_PATH`, then the usual install locations, then (Linux
 * x64) the Chromium shipped in the `@sparticuz/chromium` npm package, so a fresh machine renders
 * with no system browser and no download.
 */
export async function findBrowser(env: NodeJS.ProcessEnv = process.env, candidates = SYSTEM_BROWSERS[process.platform] ?? []): Promise<BrowserBinary> {
  for (const name of ['CHROMIUM_PATH', 'CHROME_PATH']) {
    const path = env[name];
    if (!path) continue;
    if (!executable(path)) throw new RenderError('browser-missing', `${name}=${path} is not an executable file: point it at a Chromium or Chrome binary`);
    return { path, source: 'env' };
  }
  const system = candidates.find(executable);
  if (system) return { path: system, source: 'system' };
  const bundled = await bundledChromium().catch((err: unknown) => {
    throw new RenderError('browser-missing', `the Chromium of @sparticuz/chromium could not be unpacked: ${String(err)}`, { cause: err });
  });
  if (bundled) return { path: bundled, source: 'bundled' };
  throw new RenderError(
    'browser-missing',
    'no Chromium found: set CHROMIUM_PATH, install chromium (apt-get install chromium) or Google Chrome, install @sparticuz/chromium (Linux x64; an optional dependency of trawl, left out by npm install --omit=optional), or crawl with --render never',
  );
}
