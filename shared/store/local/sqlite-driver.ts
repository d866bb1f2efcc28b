import { createRequire } from 'node:module';
import { isModuleMissing } from '../../errors.js';
import { nodeSqliteDatabase, tooOldNode, type NodeSqlite } from './node-sqlite.js';
import type { DbConstructor } from './sqlite-types.js';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** The name trawl loads better-sqlite3 12 under on Node 20 (an npm alias; trawl's own checkout has it as a devDependency). */
export const NODE20_DRIVER = 'better-sqlite3-node20';

/**
 * Node 22 marks node:sqlite experimental with a warning on stderr at its first load (Node 24
 * does not): trawl's users did not choose the driver, so that one warning is not printed.
 * Any other warning at that moment still is.
 */
function loadQuietly(id: string, load: (id: string) => unknown): unknown {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load(id);
  } finally {
    process.emitWarning = emit;
  }
}

/**
 * The SQLite driver that suits this Node: Node's own `node:sqlite` from Node 22 (the floor
 * `engines` names; nothing to install or compile), so the package depends on no driver. Node 20,
 * past its end of life and below the floor, has none: there trawl loads better-sqlite3 12 if it
 * was installed under the alias `better-sqlite3-node20` (its own checkout does, to keep CI's
 * Node 20 leg), and otherwise says how.
 */
export function loadDriver(major: number, load: (id: string) => unknown = require): DbConstructor {
  if (major >= 22) {
    let sqlite: NodeSqlite;
    try {
      sqlite = loadQuietly('node:sqlite', load) as NodeSqlite;
    } catch (err) {
      // Before Node 22.13 node:sqlite exists only behind --experimental-sqlite.
      if ((err as { code?: string }).code !== 'ERR_UNKNOWN_BUILTIN_MODULE') throw err;
      throw tooOldNode('has no node:sqlite');
    }
    return nodeSqliteDatabase(sqlite);
  }
  try {
    return load(NODE20_DRIVER) as DbConstructor;
  } catch (err) {
    if (!isModuleMissing(err)) throw err;
    throw new Error(
      `SQLite driver missing: Node ${major} has no node:sqlite, so trawl needs better-sqlite3 12 installed as ${NODE20_DRIVER}. ` +
        `Use Node 22.16 or newer (trawl's floor: nothing to install), or run: npm install ${NODE20_DRIVER}@npm:better-sqlite3@12`,
    );
  }
}

let driver: DbConstructor | undefined;

/** The driver's constructor, loaded at the first database opened: a missing driver is then a one-line error where the command reports errors. */
const Database = function open(...args: ConstructorParameters<DbConstructor>) {
  driver ??= loadDriver(nodeMajor);
  return new driver(...args);
} as unknown as DbConstructor;

export default Database;
export type { Db, Statement } from './sqlite-types.js';
