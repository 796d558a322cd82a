import { ConsoleLogger, LogLevel } from '@nestjs/common';
import type { BaseEnv } from '../config/env';
import { activeTraceIds } from '../observability/tracing';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

/** The levels written at LOG_LEVEL: that level and every more severe one. */
export function logLevelsUpTo(level: BaseEnv['LOG_LEVEL']): LogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

/**
 * ConsoleLogger that names the active trace: `trace_id`/`span_id` fields in JSON lines,
 * ` trace_id=…` at the end of text lines, when the line is written inside a traced request.
 */
class TracedConsoleLogger extends ConsoleLogger {
  private stampSecond = Number.NaN;
  private stamp = '';

  /** Nest's text-line timestamp (to the second), formatted once per second rather than per line. */
  protected override getTimestamp(): string {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.stampSecond) {
      this.stamp = super.getTimestamp();
      this.stampSecond = second;
    }
    return this.stamp;
  }

  protected override getJsonLogObject(...args: Parameters<ConsoleLogger['getJsonLogObject']>) {
    const ids = activeTraceIds();
    const line = super.getJsonLogObject(...args);
    return ids ? { ...line, trace_id: ids.traceId, span_id: ids.spanId } : line;
  }

  protected override formatMessage(...args: Parameters<ConsoleLogger['formatMessage']>): string {
    const ids = activeTraceIds();
    const line = super.formatMessage(...args);
    return ids ? line.replace(/\n?$/, ` trace_id=${ids.traceId}\n`) : line;
  }
}

/**
 * The logger of every app: LOG_LEVEL filters, LOG_FORMAT picks readable lines (`text`)
 * or one JSON object per line (`json`: level, pid, timestamp, context, message, and
 * trace_id/span_id when tracing is on) for log collectors.
 */
export function appLogger(env: Pick<BaseEnv, 'LOG_LEVEL' | 'LOG_FORMAT'>): ConsoleLogger {
  return new TracedConsoleLogger({ logLevels: logLevelsUpTo(env.LOG_LEVEL), json: env.LOG_FORMAT === 'json' });
}
