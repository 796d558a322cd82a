import { fixHeapGrowingFactor } from './heap-growth';

describe('fixHeapGrowingFactor', () => {
  it('sets the factor when the command line does not', () => {
    expect(fixHeapGrowingFactor(100, ['--enable-source-maps'])).toBe(true);
  });

  it('leaves a factor given on the command line alone, in either spelling', () => {
    expect(fixHeapGrowingFactor(100, ['--heap-growing-percent=50'])).toBe(false);
    expect(fixHeapGrowingFactor(100, ['--heap_growing_percent=50'])).toBe(false);
    expect(fixHeapGrowingFactor(100, ['--heap-growing-percent', '50'])).toBe(false);
  });

  it('refuses a factor that is not a positive integer', () => {
    expect(() => fixHeapGrowingFactor(0, [])).toThrow(RangeError);
    expect(() => fixHeapGrowingFactor(1.5, [])).toThrow(RangeError);
  });
});
