import { EnvValidationError, loadEnv, WorkerEnv } from './env';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('WorkerEnv', () => {
  it('has no health port unless one is set', () => {
    expect(loadEnv(WorkerEnv, base).WORKER_HEALTH_PORT).toBeUndefined();
    expect(loadEnv(WorkerEnv, { ...base, WORKER_HEALTH_PORT: '9100' }).WORKER_HEALTH_PORT).toBe(9100);
  });

  it.each(['0', '65536', 'web'])('refuses WORKER_HEALTH_PORT=%s naming the variable', (value) => {
    expect(() => loadEnv(WorkerEnv, { ...base, WORKER_HEALTH_PORT: value })).toThrow(EnvValidationError);
    expect(() => loadEnv(WorkerEnv, { ...base, WORKER_HEALTH_PORT: value })).toThrow(/WORKER_HEALTH_PORT/);
  });
});
