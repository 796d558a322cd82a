import {
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  INestApplication,
  Injectable,
  Module,
  Post,
  Req,
  UseGuards,
} from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { COMMON_ERRORS, ERROR_CODES } from '@vault/contracts';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Public } from '../auth/access.decorators';
import { BaseEnv } from '../config/env';
import { dataSourceOptions } from '../persistence/database.module';
import { ProblemException } from '../errors/problem.exception';
import { PlatformModule } from '../bootstrap/platform.module';
import { createTestDatabase, rawRequest, RawReply, TestDatabase, bootTestApp } from '../testing';
import {
  answerForTakenKey,
  canonicalJson,
  isStoredFailure,
  parseIdempotencyKey,
  requestFingerprint,
  settleIdempotencyFingerprint,
} from './idempotency';
import type { KeyRow } from './idempotency-store';
import { Idempotent } from './idempotency.interceptor';
import { IdempotencyKeys1763900000000 } from './idempotency-keys.migration';
import { joinRequestTransactions } from './request-transaction';
import type { StoredAnswerCodec, StoredAnswerContext } from './stored-answer-codec';

describe('Idempotency-Key rules', () => {
  it('accepts 1 to 255 visible ASCII characters, bare or as a quoted string', () => {
    expect(parseIdempotencyKey('a')).toBe('a');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    for (const bad of ['', 'k'.repeat(256), 'two words', 'tab\tkey', 'caf\u00e9', '""']) {
      expect(() => parseIdempotencyKey(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
    expect(() => parseIdempotencyKey(['a', 'b'])).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  it('fingerprints the method, the path with query and the body whatever its key order', () => {
    const req = { method: 'POST', originalUrl: '/api/v1/vault' };
    const a = requestFingerprint(req, { name: 'x', nested: { b: 1, a: [2, { d: 1, c: 2 }] } });
    expect(requestFingerprint(req, { nested: { a: [2, { c: 2, d: 1 }], b: 1 }, name: 'x' })).toBe(a);
    expect(requestFingerprint(req, { name: 'y', nested: { b: 1, a: [2, { d: 1, c: 2 }] } })).not.toBe(a);
    expect(
      requestFingerprint({ ...req, originalUrl: '/api/v1/vault?x=1' }, { name: 'x', nested: { b: 1, a: [2, { d: 1, c: 2 }] } }),
    ).not.toBe(a);
    expect(canonicalJson({ b: undefined, a: null })).toBe('{"a":null}');
  });

  it('stores final client errors only', () => {
    expect([400, 403, 404, 409, 413, 422].map(isStoredFailure)).toEqual([true, true, true, true, true, true]);
    expect([408, 425, 429, 500, 503].map(isStoredFailure)).toEqual([false, false, false, false, false]);
  });

  it('answers a taken key: 422 for another request, 409 while the first runs, else its stored answer', () => {
    const answer = { status: 201, headers: { location: '/x/1' }, body: '{"id":"1"}' };
    const done = (fingerprint: string | null): KeyRow => ({ fingerprint, state: 'completed', answer });
    const running = (fingerprint: string | null): KeyRow => ({ fingerprint, state: 'in_flight' });
    const code = (decide: () => unknown) => {
      try {
        return decide();
      } catch (err) {
        return (err as ProblemException).code;
      }
    };
    expect(answerForTakenKey(done('a'), 'a')).toBe(answer);
    // another request: 422 before anything else, even while the first runs
    expect(code(() => answerForTakenKey(done('a'), 'b'))).toBe(ERROR_CODES.idempotencyKeyReused);
    expect(code(() => answerForTakenKey(running('a'), 'b'))).toBe(ERROR_CODES.idempotencyKeyReused);
    // the same request still running, or completed without an answer: 409
    expect(code(() => answerForTakenKey(running('a'), 'a'))).toBe(ERROR_CODES.idempotencyKeyInFlight);
    expect(code(() => answerForTakenKey({ fingerprint: 'a', state: 'completed' }, 'a'))).toBe(ERROR_CODES.idempotencyKeyInFlight);
    // a request whose handler settles its fingerprint later is not compared yet
    expect(answerForTakenKey(done('a'), null)).toBe(answer);
    expect(code(() => answerForTakenKey(running('a'), null))).toBe(ERROR_CODES.idempotencyKeyInFlight);
    // a stored fingerprint not known yet: not compared, unless it counts as another request's
    expect(answerForTakenKey(done(null), 'a')).toBe(answer);
    expect(code(() => answerForTakenKey(running(null), 'a'))).toBe(ERROR_CODES.idempotencyKeyInFlight);
    expect(code(() => answerForTakenKey(running(null), 'a', { unsettledStored: 'differs' }))).toBe(
      ERROR_CODES.idempotencyKeyReused,
    );
    expect(code(() => answerForTakenKey(done(null), 'a', { unsettledStored: 'differs' }))).toBe(ERROR_CODES.idempotencyKeyReused);
    expect(answerForTakenKey(done(null), null, { unsettledStored: 'differs' })).toBe(answer);
  });
});

/** Seals every stored body as `sealed:<base64>`; refuses to open one it did not seal. */
@Injectable()
class Base64Codec implements StoredAnswerCodec {
  readonly calls: { step: 'seal' | 'open'; status: number; scope: StoredAnswerContext['scope']; path: string }[] = [];

  seal(body: string, { status, scope, request }: StoredAnswerContext): string {
    this.calls.push({ step: 'seal', status, scope, path: request.originalUrl });
    return `sealed:${Buffer.from(body).toString('base64')}`;
  }

  async open(stored: string, { status, scope, request }: StoredAnswerContext): Promise<string> {
    this.calls.push({ step: 'open', status, scope, path: request.originalUrl });
    if (!stored.startsWith('sealed:')) throw ProblemException.of(COMMON_ERRORS.conflict, 'The stored answer cannot be opened.');
    return Buffer.from(stored.slice('sealed:'.length), 'base64').toString();
  }
}

const CODEC_TOKEN = 'test:stored-answer-codec';

/** The caller is the `x-caller` header (tenant `t1`): the routes are public, the interceptor needs a principal. */
@Injectable()
class CallerFromHeader implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request & { user?: unknown }>();
    req.user = { tenantId: 't1', openId: String(req.headers['x-caller']), clientId: 'c', scopes: [], tokenId: 'j', expiresAt: 0 };
    return true;
  }
}

interface ThingDto {
  name: string;
}

/** Every answer shows a value made on the spot (as a secret is), so a replay that ran again would differ. */
@Public()
@UseGuards(CallerFromHeader)
@Controller('things')
class ThingsController {
  @Post('plain')
  @Idempotent()
  plain(@Body() body: ThingDto) {
    return { name: body.name, shownOnce: randomUUID() };
  }

  @Post('text')
  @Idempotent()
  text(@Body() body: ThingDto) {
    return `${body.name} ${randomUUID()}`;
  }

  @Post('sealed')
  @Idempotent({ storedAnswer: Base64Codec })
  sealed(@Body() body: ThingDto) {
    if (body.name === 'taken') throw ProblemException.of(COMMON_ERRORS.conflict, 'The name is taken.');
    return { name: body.name, shownOnce: randomUUID() };
  }

  @Post('by-token')
  @Idempotent({ storedAnswer: CODEC_TOKEN })
  byToken(@Body() body: ThingDto) {
    return { name: body.name, shownOnce: randomUUID() };
  }

  @Post('settled')
  @Idempotent({ fingerprint: 'settled-by-handler', storedAnswer: Base64Codec })
  settled(@Req() req: Request, @Body() body: ThingDto) {
    settleIdempotencyFingerprint(req, { name: body.name });
    return { name: body.name, shownOnce: randomUUID() };
  }
}

class CodecEnv extends BaseEnv {}

function appModule(url: string) {
  @Module({
    imports: [
      PlatformModule.forRoot({ name: 'codec', env: CodecEnv, kind: 'edge' }),
      TypeOrmModule.forRootAsync({
        useFactory: () => dataSourceOptions(url, { entities: [], migrations: [IdempotencyKeys1763900000000] }, true),
        dataSourceFactory: async (options) => {
          if (!options) throw new Error('no data source options');
          const ds = await new DataSource(options).initialize();
          joinRequestTransactions(ds);
          return ds;
        },
      }),
    ],
    controllers: [ThingsController],
    providers: [Base64Codec, { provide: CODEC_TOKEN, useExisting: Base64Codec }],
  })
  class CodecModule {}
  return CodecModule;
}

describe('@Idempotent({ storedAnswer }): a codec of the stored answer (real PostgreSQL, through HTTP)', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let app: INestApplication;
  let pg: Client;
  let codec: Base64Codec;
  let post: (path: string, key: string, body: unknown, caller?: string) => Promise<RawReply>;

  beforeAll(async () => {
    db = await createTestDatabase('platform_answer_codec');
    app = await bootTestApp(appModule(db.url), {});
    codec = app.get(Base64Codec);
    const url = new URL(await app.getUrl());
    post = (path, key, body, caller = 'alice') =>
      rawRequest(url, 'POST', `/api/v1/things/${path}`, JSON.stringify(body), {
        'content-type': 'application/json',
        'idempotency-key': key,
        'x-caller': caller,
      });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await app?.close();
    await db?.drop();
  });

  const storedBody = async (key: string): Promise<string> =>
    (await pg.query<{ body: string }>('SELECT body FROM idempotency_keys WHERE key = $1', [key])).rows[0].body;
  const callsFor = (key: string) => codec.calls.filter((c) => c.scope.key === key);
  const sealedForm = (reply: RawReply) => `sealed:${Buffer.from(reply.text, 'utf8').toString('base64')}`;
  /** A keyed request and its repeat: the stored body is the sealed answer, the repeat the first answer again. */
  const roundTrip = async (path: string, key: string, body: unknown, status: number): Promise<RawReply> => {
    const first = await post(path, key, body);
    expect(first.status).toBe(status);
    expect(await storedBody(key)).toBe(sealedForm(first));
    const again = await post(path, key, body);
    expect(again.status).toBe(status);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.text).toBe(first.text);
    return first;
  };

  it('without a codec, stores the answer as it was sent (unchanged default)', async () => {
    const key = randomUUID();
    const first = await post('plain', key, { name: 'a' });
    expect(first.status).toBe(201);
    expect(await storedBody(key)).toBe(first.text);
    const again = await post('plain', key, { name: 'a' });
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(callsFor(key)).toEqual([]);
  });

  it('replays a text answer with the Content-Type it was sent with', async () => {
    const key = randomUUID();
    const first = await post('text', key, { name: 'a' });
    expect([first.status, first.headers['content-type']]).toEqual([201, 'text/html; charset=utf-8']);
    const again = await post('text', key, { name: 'a' });
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect([again.headers['content-type'], again.text]).toEqual([first.headers['content-type'], first.text]);
  });

  it('stores the sealed body and answers a repeat with the opened one, exactly the first answer', async () => {
    const key = randomUUID();
    const first = await roundTrip('sealed', key, { name: 'a' }, 201);
    expect(await storedBody(key)).not.toContain(first.json()['shownOnce'] as string);
    const scope = { tenantId: 't1', caller: 'alice', key };
    expect(callsFor(key)).toEqual([
      { step: 'seal', status: 201, scope, path: '/api/v1/things/sealed' },
      { step: 'open', status: 201, scope, path: '/api/v1/things/sealed' },
    ]);
  });

  it('seals a stored refusal too, and replays it opened', async () => {
    const first = await roundTrip('sealed', randomUUID(), { name: 'taken' }, 409);
    expect(first.json()['code']).toBe('conflict');
  });

  it("answers a repeat whose stored body does not open with the codec's refusal, not stored, the key kept", async () => {
    const key = randomUUID();
    await post('sealed', key, { name: 'a' });
    await pg.query(`UPDATE idempotency_keys SET body = 'tampered' WHERE key = $1`, [key]);
    const again = await post('sealed', key, { name: 'a' });
    expect(again.status).toBe(409);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(again.json()).toMatchObject({ code: 'conflict', detail: 'The stored answer cannot be opened.' });
    expect(await storedBody(key)).toBe('tampered');
    // another request under the key is still told so first, before anything is opened
    const opens = callsFor(key).length;
    expect((await post('sealed', key, { name: 'b' })).status).toBe(422);
    expect(callsFor(key)).toHaveLength(opens);
  });

  it('resolves a codec given as a token', async () => {
    const key = randomUUID();
    await roundTrip('by-token', key, { name: 'a' }, 201);
    expect(callsFor(key).map((c) => c.step)).toEqual(['seal', 'open']);
  });

  it('keys of another caller are sealed and opened under their own scope', async () => {
    const key = randomUUID();
    const alice = await post('sealed', key, { name: 'a' }, 'alice');
    const bob = await post('sealed', key, { name: 'a' }, 'bob');
    expect(bob.headers['idempotency-replayed']).toBeUndefined();
    expect(bob.text).not.toBe(alice.text);
    expect(callsFor(key).map((c) => c.scope.caller)).toEqual(['alice', 'bob']);
  });

  it('on a route that settles its fingerprint itself: replays opened, 422 before opening, refusal when unreadable', async () => {
    const key = randomUUID();
    await roundTrip('settled', key, { name: 'a' }, 201);
    expect((await post('settled', key, { name: 'b' })).status).toBe(422);
    await pg.query(`UPDATE idempotency_keys SET body = 'tampered' WHERE key = $1`, [key]);
    expect((await post('settled', key, { name: 'b' })).status).toBe(422);
    const unreadable = await post('settled', key, { name: 'a' });
    expect(unreadable.status).toBe(409);
    expect(unreadable.json()['code']).toBe('conflict');
  });
});
