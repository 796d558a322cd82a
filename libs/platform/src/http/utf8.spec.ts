import { invalidUtf8Offset } from './utf8';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('invalidUtf8Offset', () => {
  it('is -1 for UTF-8 of every length, up to U+10FFFF', () => {
    expect(invalidUtf8Offset(bytes('{"name":"Zoë 雪 😀 \u{10FFFF}"}'))).toBe(-1);
    expect(invalidUtf8Offset(bytes(''))).toBe(-1);
  });

  it.each([
    ['a lone lead byte', [0xc3], '"'],
    ['a stray continuation byte', [0x80], ''],
    ['an overlong slash', [0xc0, 0xaf], ''],
    ['an overlong three-byte form', [0xe0, 0x80, 0xaf], ''],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], ''],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], ''],
    ['a byte never used', [0xff], ''],
  ])('finds %s at its offset', (_name, bad, after) => {
    expect(invalidUtf8Offset(bytes('{"name":"é', bad, after, '"}'))).toBe(11);
  });

  it('finds a sequence cut off at the end', () => {
    expect(invalidUtf8Offset(bytes('{"a":1}', [0xe2, 0x82]))).toBe(7);
    expect(invalidUtf8Offset(bytes('ok', [0xf0, 0x9f, 0x98]))).toBe(2);
  });
});
