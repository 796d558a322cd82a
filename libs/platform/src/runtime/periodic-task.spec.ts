import { PeriodicTask } from './periodic-task';

describe('PeriodicTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs the job every interval until stopped; a failed run is logged and the next one still runs', async () => {
    const warnings: string[] = [];
    let runs = 0;
    const task = new PeriodicTask(
      'nightly prune',
      1000,
      async () => {
        runs++;
        if (runs === 2) throw new Error('database away');
      },
      { warn: (m: string) => warnings.push(m) },
    );
    task.start();
    await jest.advanceTimersByTimeAsync(999);
    expect(runs).toBe(0);
    await jest.advanceTimersByTimeAsync(2001);
    expect(runs).toBe(3);
    expect(warnings).toEqual(['nightly prune failed: Error: database away']);
    task.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(3);
  });

  it('start() twice keeps one timer', async () => {
    let runs = 0;
    const task = new PeriodicTask('job', 100, async () => void runs++, { warn: () => undefined });
    task.start();
    task.start();
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(1);
    task.stop();
  });
});
