import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { isModuleMissing } from '../../errors.js';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The package that carries better-sqlite3 12 for Node 20, an optional dependency (an npm alias). */
export const NODE20_DRIVER = 'better-sqlite3-node20';

/**
 * Loads better-sqlite3 in the major that suits this Node: 13 (N-API, prebuilt binaries, nothing
 * compiled) on Node ≥ 22, the floor `engines` names; 12 on Node 20, which 13 does not run on. 12
 * is an optional dependency, installed by default and left out by `--omit=optional`, so an
 * install for a supported Node carries one SQLite driver. 12's ObjectWrap statements can also
 * abort the process at Node 24's teardown, another reason it is used only where it must be.
 */
export function loadDriver(major: number, load: (id: string) => unknown = require): typeof BetterSqlite3 {
  if (major >= 22) return load('better-sqlite3') as typeof BetterSqlite3;
  try {
    return load(NODE20_DRIVER) as typeof BetterSqlite3;
  } catch (err) {
    if (!isModuleMissing(err)) throw err;
    throw new Error(
      `SQLite driver missing: on Node ${major} trawl needs better-sqlite3 12, its optional dependency ${NODE20_DRIVER} (left out by --omit=optional). ` +
        `Use Node 22.12 or newer (trawl's floor), or run: npm install ${NODE20_DRIVER}@npm:better-sqlite3@12`,
    );
  }
}

let driver: typeof BetterSqlite3 | undefined;

/** better-sqlite3's constructor, loaded at the first database opened: a missing driver is then a one-line error where the command reports errors. */
const Database = function open(...args: ConstructorParameters<typeof BetterSqlite3>) {
  driver ??= loadDriver(nodeMajor);
  return new driver(...args);
} as unknown as typeof BetterSqlite3;

export default Database;
