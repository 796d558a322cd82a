import { ConsoleLogger, LogLevel } from '@nestjs/common';
import type { BaseEnv } from '../config/env';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** The levels written at LOG_LEVEL: that level and every more severe one. */
export function logLevelsUpTo(level: BaseEnv['LOG_LEVEL']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/**
 * The logger of every app: LOG_LEVEL filters, LOG_FORMAT picks readable lines (`text`)
 * or one JSON object per line (`json`: level, pid, timestamp, context, message) for log
 * collectors.
 */
export function appLogger(env: Pick<BaseEnv, 'LOG_LEVEL' | 'LOG_FORMAT'>): ConsoleLogger {
  return new ConsoleLogger({ logLevels: logLevelsUpTo(env.LOG_LEVEL), json: env.LOG_FORMAT === 'json' });
}
