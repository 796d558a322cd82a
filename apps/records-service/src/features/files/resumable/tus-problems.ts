import { PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import { codeForStatus, problemBody } from '@vault/platform';
import type { Response } from 'express';

/** Raw header pairs (name, value, name, value...) without Content-Type and Content-Length. */
function withoutBodyHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!/^content-(type|length)$/i.test(raw[i])) out.push(raw[i], raw[i + 1]);
  }
  return out;
}

/**
 * Makes every refusal the tus server writes on `res` a problem body of the platform:
 * one it built from our problem (`isProblem()`) gets the problem media type; one of
 * its own (412 without Tus-Resumable, 400 for a malformed tus header...) has its text
 * turned into a problem body with the request id.
 */
export function problemAnswers(
  res: Response,
  isProblem: () => boolean,
  requestId: string | undefined,
): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let plain: { status: number; text: string } | undefined;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status < 400) return writeHead(status, ...rest);
    if (!isProblem()) plain = { status, text: '' };
    res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
    const args = rest.map((a) =>
      Array.isArray(a) ? withoutBodyHeaders(a as string[]) : a,
    );
    return writeHead(status, ...args);
  }) as Response['writeHead'];
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!plain) return write(chunk, ...rest);
    plain.text +=
      Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
        ? Buffer.from(chunk).toString('utf8')
        : String(chunk);
    return true;
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!plain) return end(chunk, ...rest);
    if (chunk !== undefined && typeof chunk !== 'function') res.write(chunk);
    const detail = plain.text.trim() || 'The upload request is refused.';
    return end(
      JSON.stringify(
        problemBody(
          plain.status,
          codeForStatus(plain.status),
          detail,
          requestId,
        ),
      ),
    );
  }) as Response['end'];
}
