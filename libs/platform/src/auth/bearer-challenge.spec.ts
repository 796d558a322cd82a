import {
  bearerChallenge,
  bearerUnauthorized,
  missingBearerToken,
  reauthenticationRequired,
  signedInWithin,
} from './bearer-challenge';

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

describe('step-up challenge (RFC 9470)', () => {
  it('answers 401 reauthentication_required naming the allowed age', () => {
    const e = reauthenticationRequired(600);
    expect(e.getStatus()).toBe(401);
    expect(e.code).toBe('reauthentication_required');
    expect(e.headers?.['WWW-Authenticate']).toBe(
      'Bearer realm="vault", error="insufficient_user_authentication", error_description="This operation needs a sign-in within the last 600 seconds: sign in again and repeat it.", max_age=600',
    );
  });

  it('counts a sign-in as recent within the age only, and never without a sign-in time', () => {
    const now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const at = now / 1000;
    expect(signedInWithin({ authTime: at - 600 }, 600, now)).toBe(true);
    expect(signedInWithin({ authTime: at - 601 }, 600, now)).toBe(false);
    expect(signedInWithin({ authTime: at + 5 }, 600, now)).toBe(true);
    expect(signedInWithin({}, 600, now)).toBe(false);
  });
});
