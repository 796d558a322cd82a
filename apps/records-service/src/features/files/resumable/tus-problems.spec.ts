import { Logger } from '@nestjs/common';
import { ERRORS } from '@tus/utils';
import { problemOf } from './tus-problems';

describe('problemOf', () => {
  it("logs @tus/server's own 5xx answers by status and text, never as [object Object]", () => {
    const log = new Logger('test');
    const error = jest.spyOn(log, 'error').mockImplementation(() => undefined);
    for (const err of [ERRORS.ERR_LOCK_TIMEOUT, ERRORS.UNSUPPORTED_CONCATENATION_EXTENSION]) {
      const answer = problemOf(err, undefined, log);
      expect(answer.status_code).toBe(500);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 500, code: 'internal_error' });
    }
    const lines = error.mock.calls.map((c) => c.join(' '));
    expect(lines.join('\n')).not.toMatch(/object Object/);
    expect(lines[0]).toMatch(/@tus\/server answered 500: failed to acquire lock before timeout/);
    expect(lines[1]).toMatch(/@tus\/server answered 501: Concatenation extension is not \(yet\) supported/);
  });
});
