import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/**
 * better-sqlite3, in the major that suits this Node: 12 on Node 20 (13 declares Node ≥ 22 and
 * crashes on 20), 13 on Node ≥ 22 (an npm alias, `better-sqlite3-napi`). 12's ObjectWrap
 * statements can abort the process at Node 24's teardown (`RemoveEnvironmentCleanupHook:
 * (env) != nullptr`, seen in this project's CI on Node 24); 13 moved to node-addon-api and ships
 * prebuilt N-API binaries, so nothing is compiled for it either. Same API, same types.
 */
const Database: typeof BetterSqlite3 = nodeMajor >= 22 ? require('better-sqlite3-napi') : require('better-sqlite3');

export default Database;
