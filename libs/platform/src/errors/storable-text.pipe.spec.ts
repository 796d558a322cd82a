import { StorableTextPipe, findUnstorableText } from './storable-text.pipe';
import { ProblemException } from './problem.exception';

describe('StorableTextPipe', () => {
  const pipe = new StorableTextPipe();

  it('passes values without NUL characters through unchanged', () => {
    const body = { name: 'Passport', details: { tags: ['a', 'b'] }, n: 3 };
    expect(pipe.transform(body, { type: 'body' })).toBe(body);
    expect(pipe.transform('abc', { type: 'param', data: 'id' })).toBe('abc');
  });

  it('refuses a NUL in a path parameter, naming it', () => {
    let error: ProblemException | undefined;
    try {
      pipe.transform('a\u0000b', { type: 'param', data: 'name' });
    } catch (e) {
      error = e as ProblemException;
    }
    expect(error?.getStatus()).toBe(400);
    expect(error?.errors).toEqual([{ field: 'name', message: expect.any(String) }]);
  });

  it('finds NULs deep in bodies and queries, in values and keys', () => {
    expect(findUnstorableText({ a: { b: ['ok', 'x\u0000'] } })).toBe('a.b.1');
    expect(findUnstorableText({ 'k\u0000': 1 })).toBe('key');
    let thrown: unknown;
    try {
      pipe.transform({ q: 'x\u0000' }, { type: 'query' });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProblemException);
  });

  it('leaves custom decorator values alone', () => {
    expect(pipe.transform({ jti: 'a\u0000' }, { type: 'custom' })).toEqual({ jti: 'a\u0000' });
  });
});
