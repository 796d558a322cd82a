import { bearerChallenge, bearerUnauthorized, missingBearerToken } from './bearer-challenge';

describe('bearer challenge (RFC 6750 §3)', () => {
  it('names the realm alone when no bearer credentials were sent', () => {
    expect(bearerChallenge()).toBe('Bearer realm="vault"');
    for (const header of [undefined, '', 'Basic abc', 'Digest x']) {
      const e = missingBearerToken(header);
      expect(e.getStatus()).toBe(401);
      expect(e.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="vault"' });
    }
  });

  it('says invalid_request for a malformed Bearer header', () => {
    for (const header of ['Bearer', 'Bearer  ', 'bearer a b']) {
      expect(missingBearerToken(header).headers?.['WWW-Authenticate']).toBe(
        'Bearer realm="vault", error="invalid_request", error_description="A valid access token is required."',
      );
    }
  });

  it('says invalid_token with the description of the refusal', () => {
    const e = bearerUnauthorized('The access token has expired.', 'invalid_token');
    expect(e.getStatus()).toBe(401);
    expect(e.code).toBe('unauthorized');
    expect(e.headers?.['WWW-Authenticate']).toBe(
      'Bearer realm="vault", error="invalid_token", error_description="The access token has expired."',
    );
  });

  it('keeps only the characters RFC 6750 allows in a description', () => {
    expect(bearerChallenge('invalid_token', 'a "quoted" \\ thing\n')).toBe(
      'Bearer realm="vault", error="invalid_token", error_description="a quoted  thing"',
    );
  });
});
