import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConsoleLogger } from '@nestjs/common';
import { appLogger, logLevelsUpTo } from './app-logger';

/** Nest's own timestamp of a text line, for the current time. */
class ConsoleLoggerStamp extends ConsoleLogger {
  stamp(): string {
    return this.getTimestamp();
  }
}

describe('appLogger', () => {
  let written: string[];
  let spy: jest.SpyInstance;
  beforeEach(() => {
    written = [];
    spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  });
  afterEach(() => spy.mockRestore());

  it('writes one JSON object per line with LOG_FORMAT=json', () => {
    appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'json' }).log('vault created', 'Vaults');
    expect(written).toHaveLength(1);
    expect(written[0].endsWith('\n')).toBe(true);
    expect(JSON.parse(written[0])).toMatchObject({ level: 'log', context: 'Vaults', message: 'vault created', pid: process.pid });
  });

  it('writes readable lines with LOG_FORMAT=text', () => {
    appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'text' }).log('vault created', 'Vaults');
    expect(written.join('')).toMatch(/LOG.*\[Vaults\].*vault created/);
    expect(() => JSON.parse(written.join(''))).toThrow();
  });

  it("stamps text lines with Nest's timestamp of the second they are written in", () => {
    jest.useFakeTimers({ now: new Date('2026-03-04T05:06:07.100Z'), doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const logger = appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'text' });
      const stampOf = () => new ConsoleLoggerStamp().stamp();
      logger.log('first');
      const first = stampOf();
      jest.setSystemTime(new Date('2026-03-04T05:06:07.900Z'));
      logger.log('same second');
      jest.setSystemTime(new Date('2026-03-04T05:06:08.000Z'));
      logger.log('next second');
      const next = stampOf();
      expect(first).not.toBe(next);
      expect(written[0]).toContain(`${first} `);
      expect(written[1]).toContain(`${first} `);
      expect(written[2]).toContain(`${next} `);
    } finally {
      jest.useRealTimers();
    }
  });

  it('leaves out levels below LOG_LEVEL', () => {
    const logger = appLogger({ LOG_LEVEL: 'warn', LOG_FORMAT: 'json' });
    logger.log('hidden');
    logger.debug('hidden');
    logger.warn('shown');
    expect(written.map((w) => JSON.parse(w).message)).toEqual(['shown']);
  });

  describe('inside a trace', () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const spanId = 'b7ad6b7169203331';
    const inSpan = (fn: () => void) =>
      context.with(trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED }), fn);
    // registers the AsyncLocalStorage context manager the OpenTelemetry SDK uses
    beforeAll(() => new NodeTracerProvider().register());
    afterAll(() => {
      context.disable();
      trace.disable();
      propagation.disable();
    });

    it('carries trace_id and span_id in JSON lines, and only there', () => {
      const logger = appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'json' });
      inSpan(() => logger.log('record stored', 'Records'));
      logger.log('outside', 'Records');
      const [inside, outside] = written.map((w) => JSON.parse(w));
      expect(inside).toMatchObject({ message: 'record stored', context: 'Records', trace_id: traceId, span_id: spanId });
      expect(outside.trace_id).toBeUndefined();
    });

    it('ends text lines with trace_id=', () => {
      const logger = appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'text' });
      inSpan(() => logger.log('record stored', 'Records'));
      // the message may end in a colour reset before the trace id
      expect(written.join('')).toMatch(new RegExp(`record stored(\u001b\\[\\d+m)? trace_id=${traceId}\\n$`));
    });
  });

  it('maps each level to itself and the more severe ones', () => {
    expect(logLevelsUpTo('error')).toEqual(['fatal', 'error']);
    expect(logLevelsUpTo('verbose')).toEqual(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
  });
});
