// A lockfile for an empty project that depends on the packed trawl tarball (and aws-cdk-lib and
// constructs for the construct): the dependency closure taken from this repository's lockfile,
// so `npm ci --offline` installs it from the npm cache that this repository's `npm ci` filled.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** Where node would find `name` from a package installed at `from` (a lockfile path), or undefined. */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let at = from;
  for (;;) {
    const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!at) return undefined;
    const up = at.lastIndexOf('/node_modules/');
    at = up >= 0 ? at.slice(0, up) : '';
  }
}

/** `tarball.file` is the tarball's name inside the consumer directory `dir`. */
export function consumerLock(
  repoLockFile: string,
  repoPackage: Record<string, unknown>,
  tarball: { dir: string; file: string; name: string },
  extraRoots: Record<string, string>,
): { lock: unknown; packageJson: unknown } {
  const repo = JSON.parse(readFileSync(repoLockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const packages = repo.packages;
  const deps = repoPackage.dependencies as Record<string, string>;
  // npm installs optional dependencies unless told not to (@sparticuz/chromium is one).
  const optional = (repoPackage.optionalDependencies ?? {}) as Record<string, string>;
  const included = new Map<string, LockEntry>();
  const queue: Array<[string, string]> = [...Object.keys(deps), ...Object.keys(optional), ...Object.keys(extraRoots)].map((n) => ['', n]);
  while (queue.length) {
    const [from, name] = queue.shift()!;
    const path = resolveIn(packages, from, name);
    if (!path || included.has(path)) continue;
    const entry = packages[path]!;
    included.set(path, entry);
    const optionalPeers = new Set(
      Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, m]) => m.optional)
        .map(([n]) => n),
    );
    for (const dep of [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((n) => !optionalPeers.has(n)),
    ]) {
      queue.push([path, dep]);
    }
  }
  const strip = (e: LockEntry): LockEntry => {
    const { dev: _d, devOptional: _o, peer: _p, ...rest } = e as LockEntry & { dev?: boolean; devOptional?: boolean; peer?: boolean };
    return rest;
  };
  const rootDeps = { [tarball.name]: `file:${tarball.file}`, ...extraRoots };
  const integrity = `sha512-${createHash('sha512')
    .update(readFileSync(join(tarball.dir, tarball.file)))
    .digest('base64')}`;
  const lock = {
    name: 'consumer',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'consumer', version: '1.0.0', dependencies: rootDeps },
      [`node_modules/${tarball.name}`]: {
        version: repoPackage.version,
        resolved: `file:${tarball.file}`,
        integrity,
        license: repoPackage.license,
        dependencies: deps,
        optionalDependencies: optional,
        peerDependencies: repoPackage.peerDependencies,
        peerDependenciesMeta: repoPackage.peerDependenciesMeta,
        bin: repoPackage.bin,
        engines: repoPackage.engines,
      },
      ...Object.fromEntries([...included].map(([path, entry]) => [path, strip(entry)])),
    },
  };
  return { lock, packageJson: { name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: rootDeps } };
}
