import { appLogger, logLevelsUpTo } from './app-logger';

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

  it('leaves out levels below LOG_LEVEL', () => {
    const logger = appLogger({ LOG_LEVEL: 'warn', LOG_FORMAT: 'json' });
    logger.log('hidden');
    logger.debug('hidden');
    logger.warn('shown');
    expect(written.map((w) => JSON.parse(w).message)).toEqual(['shown']);
  });

  it('maps each level to itself and the more severe ones', () => {
    expect(logLevelsUpTo('error')).toEqual(['fatal', 'error']);
    expect(logLevelsUpTo('verbose')).toEqual(['fatal', 'error', 'warn', 'log', 'debug', 'verbose']);
  });
});
