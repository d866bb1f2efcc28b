// Every function logs through Powertools' Logger (JSON lines with the service, the function and the
// request id CloudWatch can query), behind the pipeline's Logger port.
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../shared/log/logger.js';

/** Powertools' logger behind the pipeline's Logger port. */
export function adaptPowertools(logger: PowertoolsLogger): Logger {
  return {
    debug: (m, f) => logger.debug(m, f ?? {}),
    info: (m, f) => logger.info(m, f ?? {}),
    warn: (m, f) => logger.warn(m, f ?? {}),
    error: (m, f) => logger.error(m, f ?? {}),
    child: (component) => adaptPowertools(logger.createChild({ persistentKeys: { component } })),
  };
}

/** The Powertools logger of one function (`function` in every line), at the level its environment asks (POWERTOOLS_LOG_LEVEL). */
export function functionLogger(fn: string): PowertoolsLogger {
  return new PowertoolsLogger({ serviceName: 'trawl', persistentKeys: { function: fn } });
}
