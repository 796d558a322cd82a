/** An RFC 9457 problem document as the platform answers it (docs/errors.md). */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  /** Stable snake_case machine code: branch on it, never on `detail`. */
  code?: string;
  /** The request id of the request that made the answer (the first one, for a replay). */
  requestId?: string;
  /** On 400s: every offending field with a dotted path. */
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
}

/** A non-2xx answer of the platform, with its problem body and request id. */
export class VaultApiError extends Error {
  override readonly name: string = 'VaultApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The problem's `code` (or the OAuth `error` of the token endpoint). */
  readonly code: string;
  readonly problem: Problem;
  /** `X-Request-Id` of the answer (the body's `requestId` when the header is missing). */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(problem: Problem, headers: Headers) {
    const code = problem.code ?? `http_${problem.status}`;
    const requestId = headers.get('x-request-id') ?? problem.requestId;
    super(
      `${problem.status} ${code}: ${problem.detail ?? problem.title ?? 'request failed'}${requestId ? ` (request ${requestId})` : ''}`,
    );
    this.status = problem.status;
    this.code = code;
    this.problem = problem;
    this.requestId = requestId;
    this.headers = headers;
  }
}

/** 412 `precondition_failed`: the `If-Match` tag is not current; nothing changed. Read again, then write. */
export class PreconditionFailedError extends VaultApiError {
  override readonly name = 'PreconditionFailedError';
}

/** 429 that outlasted the retry policy; `retryAfterMs` says when the platform would take it. */
export class RateLimitedError extends VaultApiError {
  override readonly name = 'RateLimitedError';
  get retryAfterMs(): number | undefined {
    const value = this.headers.get('retry-after');
    return value === null ? undefined : Number(value) * 1000;
  }
}

/** The request never got an answer (connection refused or dropped, timeout) after every retry. */
export class VaultNetworkError extends Error {
  override readonly name = 'VaultNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A downloaded or uploaded file whose SHA-256 is not the one the platform names. */
export class DigestMismatchError extends Error {
  override readonly name = 'DigestMismatchError';
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`SHA-256 mismatch: expected ${expected}, got ${actual}`);
  }
}

/** The change feed no longer holds the position asked for (410): read the vault again, then follow from the head. */
export class FeedExpiredError extends VaultApiError {
  override readonly name = 'FeedExpiredError';
}

/** Builds the typed error of a non-2xx answer (its body is read). */
export async function errorFromResponse(response: Response): Promise<VaultApiError> {
  const text = await response.text().catch(() => '');
  return errorFromBody(response.status, response.headers, text);
}

/** As {@link errorFromResponse}, from a body already read. */
export function errorFromBody(status: number, headers: Headers, text: string): VaultApiError {
  const problem = parseProblem(status, text);
  if (status === 412) return new PreconditionFailedError(problem, headers);
  if (status === 429) return new RateLimitedError(problem, headers);
  return new VaultApiError(problem, headers);
}

function parseProblem(status: number, text: string): Problem {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    // The OAuth token endpoint answers RFC 6749 bodies {error, error_description}.
    if (typeof b['error'] === 'string' && b['code'] === undefined) {
      return { status, code: b['error'], detail: String(b['error_description'] ?? b['error']) };
    }
    return { ...(b as Partial<Problem>), status } as Problem;
  }
  return { status, detail: text.slice(0, 200) || undefined };
}
