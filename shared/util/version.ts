import { readFileSync } from 'node:fs';

/** The package's version. */
export function version(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'trawl' && pkg.version) return pkg.version;
    } catch {
      // not at this depth (source tree vs dist/)
    }
  }
  return 'unknown';
}
