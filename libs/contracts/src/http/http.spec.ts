import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { CreateVaultDto, UpdateVaultDto } from '../records/vault.dto';
import { RecordDto } from '../records/record.dto';
import { CreateAccountDto, UpdateAccountDto } from '../user/account.dto';
import { findForbiddenKey, jsonNestsDeeperThan, MAX_JSON_DEPTH, parseJsonObject } from './json-body';
import { isWebUrl } from './web-url';

describe('JSON body rules', () => {
  const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

  it('measures nesting without parsing, strings skipped, exact on valid JSON', () => {
    expect(jsonNestsDeeperThan(deep(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeperThan(deep(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestsDeeperThan(`[${'['.repeat(200_000)}`)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ s: '{['.repeat(100) + '\\"{' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan('[[1],[2],[3]]', 2)).toBe(false);
  });

  it('finds prototype keys at any depth, by path', () => {
    expect(findForbiddenKey(JSON.parse('{"a":[{"b":1},{"__proto__":{}}]}'))).toBe('a.1.__proto__');
    expect(findForbiddenKey({ x: { constructor: 'c' } })).toBe('x.constructor');
    expect(findForbiddenKey({ x: { proto: 1, construct: [1] } })).toBeUndefined();
  });

  it('parses objects only', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject('[1]')).toEqual({ ok: false, reason: 'not_object' });
    expect(parseJsonObject('{"a":')).toEqual({ ok: false, reason: 'malformed' });
    expect(parseJsonObject(deep(5), 4)).toEqual({ ok: false, reason: 'too_deep' });
    expect(parseJsonObject('{"b":{"constructor":{}}}')).toEqual({ ok: false, reason: 'forbidden_key', field: 'b.constructor' });
  });

  it('holds recordDetails sent as a JSON string to the same rules', () => {
    const base = { name: 'n', description: '', recordTypeName: 't', recordSubtypeName: 's' };
    const check = (recordDetails: string) =>
      validateSync(plainToInstance(RecordDto, { ...base, recordDetails })).map((e) => e.property);
    expect(check('{"folder":{"x":1}}')).toEqual([]);
    expect(check(deep(MAX_JSON_DEPTH))).toEqual(['recordDetails']);
    expect(check('{"__proto__":{"admin":true}}')).toEqual(['recordDetails']);
  });
});

describe('URL fields', () => {
  it.each([
    'https://img.example/p.png',
    'https://cdn.example.com:8443/a/b.png?size=large#x',
    'HTTPS://IMG.EXAMPLE/p.png',
    'http://localhost:3000/p.png',
    'http://records-api.localhost/p.png',
    'http://127.0.0.1/p.png',
    'http://[::1]:8080/p.png',
  ])('accepts %s', (url) => expect(isWebUrl(url)).toBe(true));

  it.each([
    'javascript:alert(1)',
    'JavaScript://%0aalert(1)',
    'data:image/png;base64,iVBORw0KGgo=',
    'http://img.example/p.png',
    'http://localhost.evil.example/p.png',
    'ftp://img.example/p.png',
    '/relative/p.png',
    'img.example/p.png',
    'https://user:pass@img.example/p.png',
    'https:img.example/p.png',
    'https:\\\\img.example\\p.png',
    ' https://img.example/p.png',
    'https://img.example/p p.png',
    '',
  ])('refuses %s', (url) => expect(isWebUrl(url)).toBe(false));

  it('refuses a URL longer than 2048 characters', () => {
    const url = (length: number) => `https://img.example/${'a'.repeat(length - 'https://img.example/'.length)}`;
    expect(isWebUrl(url(2048))).toBe(true);
    expect(isWebUrl(url(2049))).toBe(false);
  });

  it('applies to the profile photo of vaults and accounts alike', () => {
    const dtos: (new () => object)[] = [CreateVaultDto, UpdateVaultDto, CreateAccountDto, UpdateAccountDto];
    for (const dto of dtos) {
      const errors = validateSync(plainToInstance(dto, { profilePhoto: 'javascript:alert(1)' }));
      const photo = errors.find((e) => e.property === 'profilePhoto');
      expect(photo?.constraints).toEqual({
        isWebUrl: 'profilePhoto must be an https URL of at most 2048 characters (http only for localhost)',
      });
      const fine = validateSync(plainToInstance(dto, { profilePhoto: 'https://img.example/p.png' }));
      expect(fine.find((e) => e.property === 'profilePhoto')).toBeUndefined();
    }
  });
});
