import {
  Body,
  CallHandler,
  CanActivate,
  Controller,
  Delete,
  ExecutionContext,
  INestApplication,
  Logger,
  Module,
  NestInterceptor,
  Post,
  Req,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { connect } from 'node:net';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import type { Request } from 'express';
import { gzipSync } from 'node:zlib';
import { MAX_JSON_BODY_BYTES, MAX_JSON_DEPTH } from '@vault/contracts';
import { Public } from '../src/auth';
import { PlatformModule } from '../src/bootstrap';
import { BaseEnv } from '../src/config';
import { ProblemException } from '../src/errors';
import { ReadsOwnBody } from '../src/http';
import { bootTestApp, expectProblemReply, nested, nestedJson, rawRequest, RawReply } from '../src/testing';

class InnerDto {
  @IsString()
  label!: string;
}

class EchoDto {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => InnerDto)
  inner?: InnerDto;

  @IsOptional()
  @IsObject()
  free?: Record<string, unknown>;
}

/** A route's own guard (as a role check): refuses unless the request says `x-let-in: yes`. */
class LetInGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    if (ctx.switchToHttp().getRequest<Request>().headers['x-let-in'] === 'yes') return true;
    throw ProblemException.forbidden();
  }
}

/** A route's interceptor (as Idempotency-Key's fingerprint): answers the body's name it saw before the handler. */
class SeesBodyInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = ctx.switchToHttp().getRequest<Request>();
    const body: unknown = req.body;
    const name = typeof body === 'object' && body !== null ? (body as { name?: unknown }).name : undefined;
    ctx.switchToHttp().getResponse<{ setHeader(n: string, v: string): void }>().setHeader('x-seen-name', String(name));
    return next.handle();
  }
}

@Controller('echo')
class EchoController {
  @Public()
  @Post('guarded')
  @UseGuards(LetInGuard)
  @UseInterceptors(SeesBodyInterceptor)
  guarded(@Body() body: EchoDto): EchoDto {
    return body;
  }

  @Public()
  @Post()
  echo(@Body() body: EchoDto): EchoDto {
    return body;
  }

  @Public()
  @Delete()
  remove(): { removed: true } {
    return { removed: true };
  }

  /** Reads its own stream, as multipart uploads do. */
  @Public()
  @Post('raw')
  @ReadsOwnBody()
  async raw(@Req() req: Request): Promise<{ bytes: number }> {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return { bytes };
  }
}

/** Apps pass their own env class. */
class BodiesEnv extends BaseEnv {}

@Module({
  imports: [PlatformModule.forRoot({ name: 'bodies', env: BodiesEnv, kind: 'edge' })],
  controllers: [EchoController],
})
class BodiesModule {}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('request bodies of a service (booted as services boot)', () => {
  let app: INestApplication;
  let send: (method: string, path: string, body?: string | Buffer, headers?: Record<string, string>) => Promise<RawReply>;

  beforeAll(async () => {
    app = await bootTestApp(BodiesModule, {});
    const url = new URL(await app.getUrl());
    send = (method, path, body, headers = {}) => rawRequest(url, method, path, body, headers);
  });
  afterAll(() => app.close());

  describe('nesting depth', () => {
    it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1} with 400 before any recursive walk`, async () => {
      // the body object is level 1, "free" level 2
      const fits = JSON.stringify({ name: 'n', free: nested(MAX_JSON_DEPTH - 1) });
      const ok = await send('POST', '/api/v1/echo', fits, JSON_TYPE);
      expect(ok.status).toBe(201);
      expect(JSON.stringify(ok.json())).toBe(fits);

      const deeper = JSON.stringify({ name: 'n', free: nested(MAX_JSON_DEPTH) });
      const body = expectProblemReply(await send('POST', '/api/v1/echo', deeper, JSON_TYPE), 400, 'validation_failed');
      expect(body['detail']).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    });

    it('refuses 10,000 levels of objects or arrays (60 KB) with 400, not a stack overflow', async () => {
      const objects = `{"name":"n","free":${nestedJson(10_000)}}`;
      expectProblemReply(await send('POST', '/api/v1/echo', objects, JSON_TYPE), 400, 'validation_failed');
      const arrays = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
      expectProblemReply(await send('POST', '/api/v1/echo', arrays, JSON_TYPE), 400, 'validation_failed');
    });

    it('counts brackets inside strings as text', async () => {
      const res = await send('POST', '/api/v1/echo', JSON.stringify({ name: '{'.repeat(5000) + '"\\[' }), JSON_TYPE);
      expect(res.status).toBe(201);
      expect(res.json()['name']).toBe('{'.repeat(5000) + '"\\[');
    });

    it('refuses a form body nested deeper than the limit', async () => {
      const key = `free${'[a]'.repeat(MAX_JSON_DEPTH + 5)}`;
      const res = await send('POST', '/api/v1/echo', `name=n&${key}=1`, { 'content-type': 'application/x-www-form-urlencoded' });
      expectProblemReply(res, 400, 'validation_failed');
    });
  });

  describe('content types', () => {
    it.each(['text/plain', 'application/xml', 'application/octet-stream', 'multipart/form-data; boundary=x'])(
      'refuses %s with 415',
      async (type) => {
        const res = await send('POST', '/api/v1/echo', '{"name":"n"}', { 'content-type': type });
        const body = expectProblemReply(res, 415, 'unsupported_media_type');
        expect(body['detail']).toContain(type.split(';')[0]);
      },
    );

    it('refuses a body without a content type with 415', async () => {
      expectProblemReply(await send('POST', '/api/v1/echo', '{"name":"n"}'), 415, 'unsupported_media_type');
    });

    it('refuses a chunked body (Transfer-Encoding, no Content-Length) of another type with 415', async () => {
      const res = await send('POST', '/api/v1/echo', undefined, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
      expectProblemReply(res, 415, 'unsupported_media_type');
    });

    it('takes application/json, +json types, a charset parameter, chunked JSON and form-encoded bodies', async () => {
      for (const type of ['application/json', 'application/merge-patch+json', 'application/json; charset=UTF-8']) {
        const res = await send('POST', '/api/v1/echo', '{"name":"json"}', { 'content-type': type });
        expect([type, res.status, res.json()]).toEqual([type, 201, { name: 'json' }]);
      }
      const chunked = await send('POST', '/api/v1/echo', '{"name":"chunked"}', { ...JSON_TYPE, 'transfer-encoding': 'chunked' });
      expect([chunked.status, chunked.json()]).toEqual([201, { name: 'chunked' }]);
      const form = await send('POST', '/api/v1/echo', 'name=form&inner[label]=x', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect([form.status, form.json()]).toEqual([201, { name: 'form', inner: { label: 'x' } }]);
    });

    it('takes a gzip-encoded JSON body', async () => {
      const res = await send('POST', '/api/v1/echo', gzipSync('{"name":"zipped"}'), { ...JSON_TYPE, 'content-encoding': 'gzip' });
      expect([res.status, res.json()]).toEqual([201, { name: 'zipped' }]);
    });

    it('lets a request without body bytes through whatever its content type (Content-Length: 0)', async () => {
      const res = await send('DELETE', '/api/v1/echo', undefined, { 'content-type': 'text/plain', 'content-length': '0' });
      expect([res.status, res.json()]).toEqual([200, { removed: true }]);
      const empty = await send('POST', '/api/v1/echo', '', { 'content-type': 'application/xml' });
      expect(expectProblemReply(empty, 400, 'validation_failed')['errors']).toEqual([
        { field: 'name', message: 'name must be a string' },
      ]);
    });

    it('leaves the body of a @ReadsOwnBody() route to the route, whatever its type and size', async () => {
      const bytes = Buffer.alloc(MAX_JSON_BODY_BYTES + 10, 1);
      const res = await send('POST', '/api/v1/echo/raw', bytes, { 'content-type': 'application/octet-stream' });
      expect([res.status, res.json()]).toEqual([201, { bytes: bytes.length }]);
    });
  });

  describe('when the body is read', () => {
    it("after the route's own guards: their refusal comes first, whatever the body", async () => {
      const refused = await send('POST', '/api/v1/echo/guarded', 'not json', { 'content-type': 'text/plain' });
      expectProblemReply(refused, 403, 'forbidden');
      const read = await send('POST', '/api/v1/echo/guarded', 'not json', { 'content-type': 'text/plain', 'x-let-in': 'yes' });
      expectProblemReply(read, 415, 'unsupported_media_type');
    });

    it("before the route's interceptors: they see the parsed body", async () => {
      const res = await send('POST', '/api/v1/echo/guarded', JSON.stringify({ name: 'seen' }), {
        ...JSON_TYPE,
        'x-let-in': 'yes',
      });
      expect(res.status).toBe(201);
      expect(res.headers['x-seen-name']).toBe('seen');
      expect(res.json()).toEqual({ name: 'seen' });
    });
  });

  describe('size', () => {
    const bodyOf = (size: number) => {
      const shell = '{"name":""}';
      return `{"name":"${'x'.repeat(size - shell.length)}"}`;
    };

    it(`takes a JSON body of exactly ${MAX_JSON_BODY_BYTES} bytes`, async () => {
      const res = await send('POST', '/api/v1/echo', bodyOf(MAX_JSON_BODY_BYTES), JSON_TYPE);
      expect(res.status).toBe(201);
      expect((res.json()['name'] as string).length).toBe(MAX_JSON_BODY_BYTES - 11);
    });

    it('refuses one byte more with 413, announced (closing the connection) or chunked', async () => {
      const announced = await send('POST', '/api/v1/echo', bodyOf(MAX_JSON_BODY_BYTES + 1), JSON_TYPE);
      expectProblemReply(announced, 413, 'payload_too_large');
      expect(announced.headers['connection']).toBe('close');
      const chunked = await send('POST', '/api/v1/echo', bodyOf(MAX_JSON_BODY_BYTES + 1), {
        ...JSON_TYPE,
        'transfer-encoding': 'chunked',
      });
      expectProblemReply(chunked, 413, 'payload_too_large');
      const form = await send('POST', '/api/v1/echo', `name=${'x'.repeat(MAX_JSON_BODY_BYTES)}`, {
        'content-type': 'application/x-www-form-urlencoded',
        'transfer-encoding': 'chunked',
      });
      expectProblemReply(form, 413, 'payload_too_large');
    });
  });

  describe('parser errors are problem bodies with the request id', () => {
    it('a client that hangs up before its body is read is no server error', async () => {
      const errors = jest.spyOn(Logger.prototype, 'error');
      const url = new URL(await app.getUrl());
      await new Promise<void>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => {
          // the whole request, then gone before the answer (a load generator ending its run)
          for (let i = 0; i < 20; i++) {
            socket.write(
              'POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"a"}',
            );
          }
          socket.destroy();
        });
        socket.on('close', () => resolve());
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(errors.mock.calls.filter((call) => /5\d\d|read before the platform/.test(String(call[0])))).toEqual([]);
      errors.mockRestore();
      const after = await send('POST', '/api/v1/echo', '{"name":"a"}', JSON_TYPE);
      expect(after.status).toBe(201);
    });

    it('malformed JSON: our words, not the parser text', async () => {
      const res = await send('POST', '/api/v1/echo', '{"name":', { ...JSON_TYPE, 'x-request-id': 'trace-42' });
      const body = expectProblemReply(res, 400, 'validation_failed');
      expect(body['requestId']).toBe('trace-42');
      expect(body['detail']).toBe('The request body is not valid JSON.');
      expect(res.text).not.toMatch(/Unexpected|position|SyntaxError/);
    });

    it.each(['[]', '"x"', '3', 'null', 'true'])('a top level that is not an object (%s): 400', async (text) => {
      const body = expectProblemReply(await send('POST', '/api/v1/echo', text, JSON_TYPE), 400, 'validation_failed');
      expect(body['detail']).toBe('The request body must be a JSON object.');
    });

    it('a charset other than UTF-8: 415', async () => {
      for (const charset of ['latin1', 'utf-16', 'klingon']) {
        const res = await send('POST', '/api/v1/echo', '{"name":"n"}', {
          'content-type': `application/json; charset=${charset}`,
        });
        expectProblemReply(res, 415, 'unsupported_media_type');
      }
      const form = await send('POST', '/api/v1/echo', 'name=n', {
        'content-type': 'application/x-www-form-urlencoded; charset=klingon',
      });
      expectProblemReply(form, 415, 'unsupported_media_type');
    });

    it('a false or unknown content-encoding: 400 or 415', async () => {
      const lie = await send('POST', '/api/v1/echo', '{"name":"n"}', { ...JSON_TYPE, 'content-encoding': 'gzip' });
      const body = expectProblemReply(lie, 400, 'validation_failed');
      expect(body['detail']).toContain('Content-Encoding');
      const unknown = await send('POST', '/api/v1/echo', '{"name":"n"}', { ...JSON_TYPE, 'content-encoding': 'compress' });
      expectProblemReply(unknown, 415, 'unsupported_media_type');
    });

    it.each(['/api/v2/echo', '/echo', '/nothing/at/all'])(
      'a path outside the API (%s): 404 with the request id',
      async (path) => {
        expectProblemReply(await send('GET', path), 404, 'not_found');
        expectProblemReply(await send('POST', path, '{}', JSON_TYPE), 404, 'not_found');
      },
    );
  });

  describe('prototype keys are unknown fields', () => {
    it.each([
      ['{"name":"n","__proto__":{"admin":true}}', '__proto__'],
      ['{"name":"n","constructor":{"prototype":{"admin":true}}}', 'constructor'],
      ['{"name":"n","constructor":1}', 'constructor'],
      ['{"name":"n","inner":{"label":"l","__proto__":{"x":1}}}', 'inner.__proto__'],
      ['{"name":"n","free":{"list":[{"ok":1},{"constructor":"x"}]}}', 'free.list.1.constructor'],
      ['{"name":"n","\\u005f_proto__":{"admin":true}}', '__proto__'],
    ])('%s: 400 naming %s', async (text, field) => {
      const body = expectProblemReply(await send('POST', '/api/v1/echo', text, JSON_TYPE), 400, 'validation_failed');
      const key = field.split('.').pop();
      expect(body['errors']).toEqual([{ field, message: `property ${key} should not exist` }]);
    });

    it.each([
      ['name=n&__proto__[admin]=1', '__proto__'],
      ['name=n&inner[constructor]=x', 'inner.constructor'],
      ['name=n&inner%5B%5F%5Fproto%5F%5F%5D%5Bx%5D=1', 'inner.__proto__'],
    ])('form %s: 400 naming %s', async (text, field) => {
      const res = await send('POST', '/api/v1/echo', text, { 'content-type': 'application/x-www-form-urlencoded' });
      expect(expectProblemReply(res, 400, 'validation_failed')['errors']).toEqual([
        { field, message: `property ${field.split('.').pop()} should not exist` },
      ]);
    });
  });

  describe('invalid UTF-8 is refused, never stored as replacement characters', () => {
    const utf8 = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part as string)));
    const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

    it.each([
      ['a lone 0xC3', utf8('{"name":"é', [0xc3], '"}'), 11],
      ['an overlong 0xC0 0xAF', utf8('{"name":"', [0xc0, 0xaf], '"}'), 9],
      ['an encoded surrogate 0xED 0xA0 0x80', utf8('{"name":"a', [0xed, 0xa0, 0x80], '"}'), 10],
      ['a sequence cut off at the end', utf8('{"name":"a"}', [0xe2, 0x82]), 12],
    ])('refuses a JSON body with %s with 400 naming the offset', async (_name, body, offset) => {
      const res = await send('POST', '/api/v1/echo', body, JSON_TYPE);
      const problem = expectProblemReply(res, 400, 'validation_failed');
      expect(problem['detail']).toContain(`not valid UTF-8`);
      expect(problem['detail']).toContain(`offset ${offset}`);
    });

    it('refuses a gzip JSON body and a chunked one with bad bytes alike', async () => {
      const body = utf8('{"name":"', [0xc3], '"}');
      const zipped = await send('POST', '/api/v1/echo', gzipSync(body), { ...JSON_TYPE, 'content-encoding': 'gzip' });
      expect(expectProblemReply(zipped, 400, 'validation_failed')['detail']).toContain('offset 9');
      const chunked = await send('POST', '/api/v1/echo', body, { ...JSON_TYPE, 'transfer-encoding': 'chunked' });
      expect(expectProblemReply(chunked, 400, 'validation_failed')['detail']).toContain('offset 9');
    });

    it('refuses a form body with raw bad bytes, keeps well-formed text', async () => {
      const bad = await send('POST', '/api/v1/echo', utf8('name=ab', [0xc0, 0xaf]), FORM_TYPE);
      expect(expectProblemReply(bad, 400, 'validation_failed')['detail']).toContain('offset 7');
      const good = await send('POST', '/api/v1/echo', utf8('name=Zo%C3%AB ', 'é'), FORM_TYPE);
      expect([good.status, good.json()]).toEqual([201, { name: 'Zoë é' }]);
    });
  });
});
