import { tokenIdentity } from './token-identity';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (claims: unknown) => `${b64({ alg: 'ES256', kid: 'k1' })}.${b64(claims)}.c2lnbmF0dXJl`;

describe('tokenIdentity', () => {
  it('reads tid and sub of a bearer token without checking its signature', () => {
    expect(tokenIdentity(`Bearer ${jwt({ sub: 'vault|u1', tid: 'acme', exp: 1 })}`)).toEqual({
      tenant: 'acme',
      subject: 'vault|u1',
    });
    expect(tokenIdentity(`bearer  ${jwt({ sub: 's', tid: 't' })}`)).toEqual({ tenant: 't', subject: 's' });
  });

  it.each([
    ['no header', undefined],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['not three parts', 'Bearer abc.def'],
    ['a payload that is not JSON', 'Bearer eyJhIjoxfQ.bm90IGpzb24.sig'],
    ['a payload that is not an object', `Bearer ${jwt('text')}`],
    ['no tid', `Bearer ${jwt({ sub: 's' })}`],
    ['no sub', `Bearer ${jwt({ tid: 't' })}`],
    ['claims that are not strings', `Bearer ${jwt({ sub: 1, tid: ['t'] })}`],
    ['empty claims', `Bearer ${jwt({ sub: '', tid: 't' })}`],
    ['an overlong claim', `Bearer ${jwt({ sub: 's'.repeat(257), tid: 't' })}`],
    ['an overlong token', `Bearer ${jwt({ sub: 's', tid: 't', pad: 'x'.repeat(9000) })}`],
  ])('names nobody for %s', (_, header) => {
    expect(tokenIdentity(header)).toBeUndefined();
  });
});
