import nodeCrypto, { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { DEFAULT_TOKEN_AUDIENCE } from '@vault/contracts';
import { JwksKeyStore, JwksKeyStoreOptions } from '../src/auth/jwks-key-store';
import { TokenVerifier } from '../src/auth/jwt.strategy';
import { metricsRegistry } from '../src/observability/metrics';
import { badTokens, TEST_ISSUER, TestIdentityProvider } from '../src/testing';
import { outcome, sleep, until } from './fixtures/token-outcomes';

/**
 * The token verifier against a real JWKS over HTTP (the stand-in identity provider),
 * with the refresh timings shortened so that expiries, cooldowns and rotations happen
 * within a test.
 */
describe('TokenVerifier with JwksKeyStore', () => {
  let idp: TestIdentityProvider;
  const stores: JwksKeyStore[] = [];
  const revoked = new Set<string>();

  function verifier(options: Partial<JwksKeyStoreOptions>): TokenVerifier {
    const store = new JwksKeyStore(idp.jwksUrl, options);
    stores.push(store);
    store.start();
    return new TokenVerifier(
      store,
      { isRevoked: (jti) => revoked.has(jti) },
      {
        issuer: TEST_ISSUER,
        audience: DEFAULT_TOKEN_AUDIENCE,
      },
    );
  }

  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(async () => {
    idp = await TestIdentityProvider.start();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) s.stop();
    await idp.stop();
  });

  it('accepts a valid token and refuses every kind of bad token with 401', async () => {
    const v = verifier({ cooldownMs: 60_000 });
    const sub = `vault|${randomUUID()}`;
    expect(await outcome(v, await idp.token({ sub }))).toBe(sub);

    const bad = await badTokens(idp);
    expect(Object.keys(bad).sort()).toEqual(
      ['algNone', 'expired', 'junk', 'tampered', 'tooOld', 'unknownKey', 'wrongAlgorithm', 'wrongAudience', 'wrongIssuer'].sort(),
    );
    const outcomes = Object.fromEntries(await Promise.all(Object.entries(bad).map(async ([k, t]) => [k, await outcome(v, t)])));
    expect(outcomes).toEqual({
      junk: '401: A valid access token is required.',
      algNone: '401: A valid access token is required.',
      tampered: '401: A valid access token is required.',
      expired: '401: The access token has expired.',
      tooOld: '401: The access token has expired.',
      wrongAudience: '401: A valid access token is required.',
      wrongIssuer: '401: A valid access token is required.',
      wrongAlgorithm: '401: A valid access token is required.',
      unknownKey: '401: A valid access token is required.',
    });

    const jti = randomUUID();
    const token = await idp.token({ jti });
    expect(await outcome(v, token)).toMatch(/^vault\|/);
    revoked.add(jti);
    expect(await outcome(v, token)).toBe('401: The access token has been revoked.');

    // a genuine signature over a token without the claims a principal needs
    const noTenant = await idp.token({ tid: '' });
    expect(await outcome(v, noTenant)).toBe('401: The access token lacks required claims.');

    for (const header of [undefined, '', 'Basic abc', 'Bearer', `Bearer ${token} extra`]) {
      await expect(v.authenticate(header)).rejects.toMatchObject({ message: 'A valid access token is required.' });
    }
    // RFC 6750 §3: the challenge names no error without bearer credentials, invalid_token for a refused token
    await expect(v.authenticate(undefined)).rejects.toMatchObject({ headers: { 'WWW-Authenticate': 'Bearer realm="vault"' } });
    for (const t of [bad['expired'], bad['tampered'], token]) {
      await expect(v.authenticate(`Bearer ${t}`)).rejects.toMatchObject({
        headers: {
          'WWW-Authenticate': expect.stringMatching(
            /^Bearer realm="vault", error="invalid_token", error_description="(The access token has expired|A valid access token is required|The access token has been revoked)\."$/,
          ),
        },
      });
    }
    // the first fetch at start only: nothing above fetched again (cooldown of a minute)
    expect(idp.jwksFetches).toBe(1);
  });

  it("gives the principal the token's auth_time, none when it is absent or after the issuance", async () => {
    const v = verifier({ cooldownMs: 60_000 });
    const authTimeOf = async (signedInAgo: number | null) => {
      const token = await idp.token({ signedInAgo });
      // twice: verified, then from the verified-token cache
      const [first, again] = [await v.authenticate(`Bearer ${token}`), await v.authenticate(`Bearer ${token}`)];
      expect(again.authTime).toBe(first.authTime);
      return first.authTime;
    };
    const now = Math.floor(Date.now() / 1000);
    const fresh = await authTimeOf(0);
    expect(Math.abs(Number(fresh) - now)).toBeLessThanOrEqual(2);
    expect(now - Number(await authTimeOf(3600))).toBeGreaterThanOrEqual(3599);
    expect(await authTimeOf(-30)).toBeGreaterThan(now);
    expect(await authTimeOf(-3600)).toBeUndefined();
    expect(await authTimeOf(null)).toBeUndefined();
  });

  it('refuses a token whose kid names no published key without fetching more than once per cooldown', async () => {
    const v = verifier({ cooldownMs: 60_000 });
    expect(await outcome(v, await idp.token())).toMatch(/^vault\|/);
    const unknown = await Promise.all(Array.from({ length: 300 }, () => idp.token({ kid: randomUUID() })));
    const results = await Promise.all(unknown.map((t) => outcome(v, t)));
    expect(new Set(results)).toEqual(new Set(['401: A valid access token is required.']));
    expect(idp.jwksFetches).toBe(1);
  });

  it('keeps valid tokens verifying through a flood of unknown kids, refreshes and a rotation, with a bounded number of fetches', async () => {
    const cooldownMs = 200;
    const started = Date.now();
    const v = verifier({ refreshIntervalMs: 500, cooldownMs });
    const oldKid = idp.kid;
    let flood = 0;
    let validChecked = 0;
    const failures: string[] = [];
    let rotatedKid: string | undefined;
    let removed = false;

    // ~3.5 s: each round sends 40 unknown-kid tokens and valid tokens of every published key at once
    for (let round = 0; Date.now() - started < 3500; round++) {
      if (round === 10) rotatedKid = await idp.rotate(); // new kid published and signing, old kept
      if (round === 25 && rotatedKid) {
        idp.removeKey(oldKid);
        removed = true;
      }
      const unknown = Array.from({ length: 40 }, () => idp.unpublishedToken());
      const validKids = [idp.kid, ...(rotatedKid && !removed ? [oldKid] : [])];
      const valid = await Promise.all(validKids.map((kid) => idp.token({ signWith: kid })));
      // whether the rotated key was loaded before these checks began (a refresh may land during them)
      const rotatedLoaded = rotatedKid !== undefined && v.keys.kids().includes(rotatedKid);
      const [floodResults, validResults] = await Promise.all([
        Promise.all(unknown.map(async (t) => outcome(v, await t))),
        Promise.all(valid.map((t) => outcome(v, t))),
      ]);
      flood += floodResults.length;
      expect(floodResults.every((r) => r.startsWith('401'))).toBe(true);
      validResults.forEach((r, i) => {
        validChecked++;
        // a token of the just-rotated key may be refused until the one refresh that finds it
        const fresh = validKids[i] === rotatedKid && !rotatedLoaded;
        if (!r.startsWith('vault|') && !fresh) failures.push(`round ${round} kid ${validKids[i]}: ${r}`);
      });
      await sleep(50);
    }
    const elapsed = Date.now() - started;
    expect(failures).toEqual([]);
    expect(flood).toBeGreaterThanOrEqual(500);
    expect(validChecked).toBeGreaterThan(40);
    // no two fetches start within one cooldown: at most one at start plus one per cooldown elapsed
    const bound = 1 + Math.floor(elapsed / cooldownMs);
    expect(idp.jwksFetches).toBeLessThanOrEqual(bound);
    expect(idp.jwksFetches).toBeGreaterThanOrEqual(Math.floor(elapsed / 500)); // the timer ran
    // the removed key is gone after the next refresh
    expect(v.keys.kids()).toEqual([rotatedKid]);
    expect(await outcome(v, await idp.token({ signWith: rotatedKid }))).toMatch(/^vault\|/);
    process.stdout.write(
      `flood: ${flood} unknown-kid tokens, ${validChecked} valid tokens in ${elapsed} ms; ` +
        `${idp.jwksFetches} JWKS fetches (bound ${bound})\n`,
    );
  });

  it('accepts a token of a rotated key after exactly one refresh, at once when the cooldown has passed', async () => {
    const cooldownMs = 400;
    const v = verifier({ refreshIntervalMs: 60_000, cooldownMs });
    expect(await outcome(v, await idp.token())).toMatch(/^vault\|/);
    expect(idp.jwksFetches).toBe(1);

    // within the cooldown: refused now, one refresh is scheduled at its end and finds the key
    const newKid = await idp.rotate();
    const token = await idp.token();
    expect(await outcome(v, token)).toBe('401: A valid access token is required.');
    expect(idp.jwksFetches).toBe(1);
    await until(() => v.keys.kids().includes(newKid), 2000);
    expect(idp.jwksFetches).toBe(2);
    expect(await outcome(v, token)).toMatch(/^vault\|/);

    // after the cooldown: the first token of the next key triggers one fetch and is accepted
    await sleep(cooldownMs + 50);
    await idp.rotate();
    expect(await outcome(v, await idp.token())).toMatch(/^vault\|/);
    expect(idp.jwksFetches).toBe(3);
  });

  it('never makes known kids wait on a fetch, and keeps the last good key set when a refresh fails', async () => {
    const v = verifier({ refreshIntervalMs: 60_000, cooldownMs: 100, timeoutMs: 1500 });
    const token = await idp.token();
    expect(await outcome(v, token)).toMatch(/^vault\|/);

    // a slow key server: an unknown kid starts a fetch that hangs; known tokens answer meanwhile
    idp.delayMs = 1000;
    await sleep(150);
    const pending = outcome(v, await idp.unpublishedToken());
    await until(() => idp.jwksFetches === 2, 1000);
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) expect(await outcome(v, token)).toMatch(/^vault\|/);
    expect(Date.now() - t0).toBeLessThan(500);
    expect(await pending).toBe('401: A valid access token is required.');

    // a failing key server (500, then a timeout): the known key keeps verifying
    idp.delayMs = 0;
    idp.failWith = 500;
    await sleep(150);
    expect(await outcome(v, await idp.unpublishedToken())).toMatch(/^401/);
    expect(idp.jwksFetches).toBe(3);
    idp.failWith = undefined;
    idp.delayMs = 3000;
    await sleep(150);
    expect(await outcome(v, await idp.unpublishedToken())).toMatch(/^401/);
    expect(idp.jwksFetches).toBe(4);
    expect(v.keys.kids()).toEqual([idp.kid]);
    expect(await outcome(v, token)).toMatch(/^vault\|/);
  });

  it('reports its cache in the metrics: keys held, age of the last good refresh, failed refreshes', async () => {
    /** A label-less series of the registry (as GET /metrics renders it), undefined when absent. */
    const sample = async (series: string) => {
      const line = (await metricsRegistry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const failedBefore = (await sample('jwks_refresh_failures_total')) ?? 0;
    idp.failWith = 503;
    const v = verifier({ initialRetryMs: 100, cooldownMs: 100, refreshIntervalMs: 60_000 });
    // the first fetch and a retry 100 ms later both failed
    await until(async () => ((await sample('jwks_refresh_failures_total')) ?? 0) >= failedBefore + 2, 1000);
    expect(await sample('jwks_keys_cached')).toBe(0);
    // stale since the store started
    expect(await sample('jwks_last_refresh_age_seconds')).toBeGreaterThan(0);

    idp.failWith = undefined;
    await until(() => v.keys.kids().length === 1, 1000);
    await idp.rotate();
    await sleep(150);
    // the rotated key's token has the store refresh: both keys held, refreshed just now
    expect(await outcome(v, await idp.token())).toMatch(/^vault\|/);
    expect(await sample('jwks_keys_cached')).toBe(2);
    const age = (await sample('jwks_last_refresh_age_seconds')) ?? -1;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(1);
    await sleep(1000);
    expect(await sample('jwks_last_refresh_age_seconds')).toBeGreaterThanOrEqual(age + 1);
  });

  it('retries the first key set quickly while the key server is down', async () => {
    idp.failWith = 503;
    const v = verifier({ initialRetryMs: 100, cooldownMs: 60_000 });
    const token = await idp.token();
    await until(() => idp.jwksFetches >= 2, 1000);
    idp.failWith = undefined;
    await until(() => v.keys.kids().length === 1, 1000);
    expect(await outcome(v, token)).toMatch(/^vault\|/);
  });

  it('checks the signature of a token once, and forgets it when its key leaves, it expires or it is revoked', async () => {
    const v = verifier({ refreshIntervalMs: 60_000, cooldownMs: 100 });
    // passport-jwt verifies with jsonwebtoken (node's createVerify); WebCrypto counted too
    const verifiers = jest.spyOn(nodeCrypto, 'createVerify');
    const subtle = jest.spyOn(crypto.subtle, 'verify');
    const signatures = {
      mock: {
        get calls() {
          return [...verifiers.mock.calls, ...subtle.mock.calls];
        },
      },
      mockRestore: () => {
        verifiers.mockRestore();
        subtle.mockRestore();
      },
    };
    try {
      const jti = randomUUID();
      const token = await idp.token({ jti });
      expect(await outcome(v, token)).toMatch(/^vault\|/);
      const checked = signatures.mock.calls.length;
      expect(checked).toBe(1);
      for (let i = 0; i < 5; i++) expect(await outcome(v, token)).toMatch(/^vault\|/);
      expect(signatures.mock.calls.length).toBe(checked);

      // revoked: refused at once although remembered
      revoked.add(jti);
      expect(await outcome(v, token)).toBe('401: The access token has been revoked.');
      revoked.delete(jti);

      // a token that expires while remembered is refused after its exp (2 s: exp is in whole
      // seconds, so a 1 s token signed late in a second could expire before its first check)
      const short = await idp.token({ expiresIn: 2 });
      expect(await outcome(v, short)).toMatch(/^vault\|/);
      await sleep(2100);
      expect(await outcome(v, short)).toBe('401: The access token has expired.');

      // its key leaves the JWKS: the next refresh forgets it, the token is refused
      const old = idp.kid;
      await idp.rotate();
      idp.removeKey(old);
      await sleep(150);
      expect(await outcome(v, await idp.token())).toMatch(/^vault\|/); // the new key: one refresh
      expect(v.keys.kids()).not.toContain(old);
      expect(await outcome(v, token)).toBe('401: A valid access token is required.');
    } finally {
      signatures.mockRestore();
    }
  });

  it('uses only the ES256 public signing keys of the JWKS', async () => {
    const rsa = await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey);
    const p384 = await exportJWK((await generateKeyPair('ES384', { extractable: true })).publicKey);
    const encryption = { ...idp.publicJwk(), kid: 'enc', use: 'enc' };
    const otherAlg = { ...idp.publicJwk(), kid: 'other-alg', alg: 'ES384' };
    const broken = { ...idp.publicJwk(), kid: 'broken', x: 'AAAA' };
    idp.extraJwks = [{ ...rsa, kid: 'rsa' }, { ...p384, kid: 'p384' }, encryption, otherAlg, broken, { kid: 'empty' }];
    const v = verifier({ cooldownMs: 60_000 });
    await until(() => v.keys.kids().length > 0, 1000);
    expect(v.keys.kids()).toEqual([idp.kid]);
    expect(await outcome(v, await idp.token())).toMatch(/^vault\|/);
    for (const kid of ['rsa', 'p384', 'enc', 'other-alg', 'broken', 'empty']) {
      expect(await outcome(v, await idp.token({ kid }))).toBe('401: A valid access token is required.');
    }
    // an HS256 token naming the published kid fails before any key is looked up
    const hs = await new SignJWT({ sub: 'x', tid: 't', jti: 'j' })
      .setProtectedHeader({ alg: 'HS256', kid: idp.kid })
      .setIssuer(TEST_ISSUER)
      .setAudience(DEFAULT_TOKEN_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('secret'));
    expect(await outcome(v, hs)).toBe('401: A valid access token is required.');
    expect(idp.jwksFetches).toBe(1);
  });
});
