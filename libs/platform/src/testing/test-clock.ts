/**
 * Date.now() of the code a test runs in its own process (a booted app, its limiters and
 * throttles), moved by an offset: the test waits out a delay, or starts at the beginning of
 * a fixed window, without sleeping. Timers are left alone. `restore()` brings the real
 * clock back (in afterEach/afterAll).
 */
export class TestClock {
  private offset = 0;
  private readonly realNow = Date.now;

  private constructor() {
    const realNow = this.realNow;
    Date.now = () => realNow.call(Date) + this.offset;
  }

  static install(): TestClock {
    return new TestClock();
  }

  /** Moves the clock `ms` forward. */
  advance(ms: number): void {
    this.offset += ms;
  }

  /** Moves the clock forward to `afterMs` past the start of the next window of `windowMs`. */
  toNextWindow(windowMs: number, afterMs = 50): void {
    this.advance(windowMs - (Date.now() % windowMs) + afterMs);
  }

  restore(): void {
    Date.now = this.realNow;
  }
}
