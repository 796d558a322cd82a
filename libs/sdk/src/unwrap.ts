import { errorFromBody } from './errors.js';

/** What an openapi-fetch call resolves to. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data and response, or the typed error ({@link VaultApiError}, {@link PreconditionFailedError}, …). */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const text = typeof error === 'string' ? error : error === undefined ? '' : JSON.stringify(error);
    throw errorFromBody(response.status, response.headers, text);
  }
  return { data: data as T, response };
}

/** The answer's data, or the typed error. */
export async function dataOf<T>(call: Promise<FetchResult<T>>): Promise<T> {
  return (await unwrap(call)).data;
}
