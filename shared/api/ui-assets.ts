import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UiAsset {
  type: string;
  body: Uint8Array;
}

/** The web UI's built files by path (`/index.html`, `/app.js`, …), held in memory. */
export type UiAssets = Map<string, UiAsset>;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Where `npm run build:ui` puts the bundle: `dist/ui` of the package, found from the source tree
 * (`shared/api/`) and from the compiled one (`dist/shared/api/`); a Lambda bundle carries it as `ui/`.
 */
export function defaultUiDir(): string | undefined {
  const here = fileURLToPath(new URL('.', import.meta.url));
  return [join(here, '../../dist/ui'), join(here, '../../ui'), join(here, 'ui')].find((d) => existsSync(join(d, 'index.html')));
}

/** Reads the built UI into memory (a few hundred KiB); undefined when it was never built. */
export function loadUiAssets(dir = defaultUiDir()): UiAssets | undefined {
  if (!dir || !existsSync(join(dir, 'index.html'))) return undefined;
  const assets: UiAssets = new Map();
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(`/${name}`, { type, body: readFileSync(join(dir, name)) });
  }
  return assets;
}
