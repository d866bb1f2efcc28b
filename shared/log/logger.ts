/** A structured logger with child loggers per component; on stderr, text on a terminal and JSON lines otherwise. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(component: string): Logger;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

/** JSON when asked (`TRAWL_LOG_FORMAT=json`, `--log-format json`) or when stderr is not a terminal (a file, a pipe, a log shipper); text on a terminal. */
export function defaultLogFormat(env: NodeJS.ProcessEnv = process.env, terminal = Boolean(process.stderr.isTTY)): LogFormat {
  const asked = env.TRAWL_LOG_FORMAT;
  if (asked === 'json' || asked === 'text') return asked;
  return terminal ? 'text' : 'json';
}

/** One line for a person: `12:04:05 WARN  trawl.fetch: message key=value key="two words"`. */
export function textLine(time: Date, level: LogLevel, component: string, message: string, fields?: Record<string, unknown>): string {
  const value = (v: unknown) => (typeof v === 'string' ? (/^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)) : JSON.stringify(v));
  const extra = Object.entries(fields ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`)
    .join(' ');
  return `${time.toISOString().slice(11, 19)} ${level.toUpperCase().padEnd(5)} ${component}: ${message}${extra ? ` ${extra}` : ''}`;
}

export function createLogger(
  level: LogLevel = 'warn',
  component = 'trawl',
  write: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  format: LogFormat = defaultLogFormat(),
): Logger {
  const emit = (lvl: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const time = new Date();
    write(
      format === 'text'
        ? textLine(time, lvl, component, message, fields)
        : JSON.stringify({ time: time.toISOString(), level: lvl, component, message, ...fields }),
    );
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (c) => createLogger(level, `${component}.${c}`, write, format),
  };
}
