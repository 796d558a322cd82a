import { BadRequestException, HttpException, Logger, NotFoundException } from '@nestjs/common';
import { IsEmail, IsInt, ValidateNested } from 'class-validator';
import { Type, plainToInstance } from 'class-transformer';
import { COMMON_ERRORS, FILE_ERRORS, isErrorCode } from '@vault/contracts';
import { QueryFailedError } from 'typeorm';
import { ClosedConnectionError, NoRespondersError, TimeoutError } from '@nats-io/nats-core';
import { validateSync } from 'class-validator';
import { ProblemAnswer, ProblemFilter, ProblemFilterHooks } from './problem.filter';
import { ProblemException } from './problem.exception';
import { flattenValidationErrors } from './validation';
import { codeForStatus, problemBody } from './problem-body';
import { acceptRequestId, requestIdProblemHooks } from '../http/request-id.middleware';

function run(exception: unknown, headersSent = false, hooks: ProblemFilterHooks[] = [requestIdProblemHooks]) {
  const res = {
    headersSent,
    statusCode: 0,
    headers: {} as Record<string, string>,
    contentType: '',
    body: '',
    destroyed: false,
    set(h: Record<string, string>) {
      Object.assign(this.headers, h);
      return this;
    },
    status(s: number) {
      this.statusCode = s;
      return this;
    },
    type(t: string) {
      this.contentType = t;
      return this;
    },
    send(b: string) {
      this.body = b;
      return this;
    },
    destroy() {
      this.destroyed = true;
    },
  };
  const req = { id: 'req-1', method: 'GET', originalUrl: '/x' };
  const host = { switchToHttp: () => ({ getResponse: () => res, getRequest: () => req }) };
  new ProblemFilter(hooks).catch(exception, host as never);
  return { res, body: res.body ? JSON.parse(res.body) : undefined };
}

describe('ProblemFilter', () => {
  beforeAll(() => Logger.overrideLogger(false));
  it('renders a ProblemException with its code, fields and headers', () => {
    const { res, body } = run(ProblemException.tooManyRequests(2.2));
    expect(res.statusCode).toBe(429);
    expect(res.contentType).toBe('application/problem+json; charset=utf-8');
    expect(res.headers['Retry-After']).toBe('3');
    expect(body).toEqual({
      type: expect.stringMatching(/too_many_requests$/),
      title: 'Too Many Requests',
      status: 429,
      detail: expect.any(String),
      code: 'too_many_requests',
      requestId: 'req-1',
    });
  });

  it('sends a catalogue entry with the status the catalogue gives it (ProblemException.of)', () => {
    const { res, body } = run(
      ProblemException.of(COMMON_ERRORS.rangeNotSatisfiable, 'Beyond the end.', { headers: { 'Content-Range': 'bytes */10' } }),
    );
    expect(res.statusCode).toBe(COMMON_ERRORS.rangeNotSatisfiable.status);
    expect(res.headers['Content-Range']).toBe('bytes */10');
    expect(body).toMatchObject({
      status: 416,
      code: 'range_not_satisfiable',
      title: 'Range Not Satisfiable',
      detail: 'Beyond the end.',
    });
    // without a detail of its own, the entry's meaning is the detail
    expect(run(ProblemException.of(FILE_ERRORS.fileNameTaken)).body).toMatchObject({
      status: 409,
      code: 'file_name_taken',
      detail: FILE_ERRORS.fileNameTaken.meaning,
    });
  });

  it('maps Nest HTTP exceptions and hides route internals', () => {
    expect(run(new NotFoundException('Cannot GET /api/v1/x')).body).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'No such resource.',
    });
    expect(run(new BadRequestException(['a is bad', 'b is bad'])).body.detail).toBe('a is bad; b is bad');
  });

  it('maps body-parser errors to 400 and 413', () => {
    expect(run({ status: 400, type: 'entity.parse.failed', message: 'Unexpected token' }).body).toMatchObject({
      status: 400,
      detail: 'The request body is not valid JSON.',
    });
    expect(run({ statusCode: 413, type: 'entity.too.large' }).body.code).toBe('payload_too_large');
  });

  it('never leaks the message of an unexpected error', () => {
    const { res, body } = run(new Error('password=hunter2 at db.ts:12'));
    expect(res.statusCode).toBe(500);
    expect(JSON.stringify(body)).not.toMatch(/hunter2|db\.ts/);
    expect(body.code).toBe('internal_error');
  });

  it('turns database data exceptions into 400 and unique violations into 409', () => {
    const nul = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      driverError: { code: '22021' },
    });
    expect(run(nul).body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(JSON.stringify(run(nul).body)).not.toMatch(/UTF8/);
    expect(run(Object.assign(new Error('dup'), { code: '23505' })).body.status).toBe(409);
    const typeormDup = new QueryFailedError('INSERT', [], Object.assign(new Error('dup'), { code: '23505', constraint: 'k' }));
    expect(run(typeormDup).body).toMatchObject({ status: 409, code: 'conflict' });
    expect(run(Object.assign(new Error('deadlock'), { code: '40P01' })).body.status).toBe(500);
  });

  it('answers 503 with Retry-After, without internals, when a dependency is down', () => {
    const down = [
      new TimeoutError(),
      new ClosedConnectionError(),
      new NoRespondersError('$JS.API.STREAM.INFO.x'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new QueryFailedError(
        'SELECT 1',
        [],
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ];
    for (const err of down) {
      const { res, body } = run(err);
      expect([err.message, res.statusCode, res.headers['Retry-After']]).toEqual([err.message, 503, '5']);
      expect(body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(body.detail).not.toContain(err.message);
    }
    // other database errors and plain errors stay what they were
    expect(run(Object.assign(new Error('deadlock'), { code: '40P01' })).body.status).toBe(500);
    expect(run(Object.assign(new Error('nul'), { code: '22021' })).body.status).toBe(400);
    expect(run(new Error('boom')).res.headers['Retry-After']).toBeUndefined();
  });

  it('destroys the socket when the response already started', () => {
    const { res } = run(new HttpException('late', 500), true);
    expect(res.destroyed).toBe(true);
    expect(res.body).toBe('');
  });
});

class Inner {
  @IsEmail()
  address!: string;
}
class Outer {
  @IsInt()
  count!: number;
  @ValidateNested({ each: true })
  @Type(() => Inner)
  emails!: Inner[];
}

describe('validation errors', () => {
  it('flattens nested errors into dotted field paths', () => {
    const obj = plainToInstance(Outer, { count: 'x', emails: [{ address: 'ok@example.com' }, { address: 'nope' }] });
    const fields = flattenValidationErrors(validateSync(obj));
    expect(fields.map((f) => f.field).sort()).toEqual(['count', 'emails.1.address']);
  });
});

describe('problem bodies and request ids', () => {
  it('builds bodies without empty optional members', () => {
    expect(problemBody(404, 'not_found', 'gone')).toEqual({
      type: expect.any(String),
      title: 'Not Found',
      status: 404,
      detail: 'gone',
      code: 'not_found',
    });
    expect(codeForStatus(418)).toMatch(/^[a-z_]+$/);
    expect(codeForStatus(503)).toBe('service_unavailable');
  });

  it('defaults every error status to a code of the catalogue', () => {
    for (let status = 400; status < 600; status++) {
      expect([status, isErrorCode(codeForStatus(status))]).toEqual([status, true]);
    }
    expect(codeForStatus(405)).toBe('method_not_allowed');
    expect(codeForStatus(416)).toBe('range_not_satisfiable');
    expect(codeForStatus(418)).toBe('request_error');
    expect(codeForStatus(504)).toBe('internal_error');
  });

  it('echoes safe request ids and replaces unsafe ones', () => {
    expect(acceptRequestId('abc-123')).toBe('abc-123');
    const replaced = acceptRequestId('bad id\r\nX-Injected: 1');
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    expect(acceptRequestId('x'.repeat(129))).not.toBe('x'.repeat(129));
    expect(acceptRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes what the layers above it add through its hooks, and works without them', async () => {
    // no hooks: no request id (http/ hands it over), the answer sent at once
    expect(run(ProblemException.notFound(), false, []).body).not.toHaveProperty('requestId');
    // a hook answering the exception itself: no problem body
    const answered = run(new Error('replay'), false, [{ answers: (e, _req, res) => (e as Error).message === 'replay' && !!res }]);
    expect(answered.res.body).toBe('');
    // ... but not once something was sent: the response is cut instead
    expect(run(new Error('replay'), true, [{ answers: () => true }]).res.destroyed).toBe(true);
    // beforeSend sees the answer as it is sent, which waits for it
    let seen: ProblemAnswer | undefined;
    let release!: () => void;
    const held = run(ProblemException.notFound(), false, [
      requestIdProblemHooks,
      { beforeSend: (_req, answer) => ((seen = answer), new Promise<void>((r) => (release = r))) },
    ]);
    expect(held.res.body).toBe('');
    expect(seen).toMatchObject({ status: 404, headers: { 'content-type': 'application/problem+json; charset=utf-8' } });
    release();
    await new Promise((r) => setImmediate(r));
    expect(held.res.statusCode).toBe(404);
    expect(JSON.parse(held.res.body)).toMatchObject({ code: 'not_found', requestId: 'req-1' });
    expect(held.res.body).toBe(seen?.body);
  });
});
