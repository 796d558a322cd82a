import { applyDecorators, Header } from '@nestjs/common';
import type { ResponseHeaderName } from './headers';

/** When parts of an answer were deprecated and when they stop being sent. */
export interface AnswerDeprecation {
  since: Date;
  sunset: Date;
}

/** The headers a route with deprecated answer parts sends on success (document them with `headersOf`). */
export const DEPRECATION_HEADERS: readonly ResponseHeaderName[] = ['Deprecation', 'Sunset'];

/**
 * A route whose answer still carries deprecated fields (marked `deprecated: true` in its
 * schema): every success answer says so with `Deprecation: @<since>` (RFC 9745) and
 * `Sunset: <HTTP-date>` (RFC 8594). Pair it with `headersOf(DEPRECATION_HEADERS, DEPRECATION_HEADERS)`
 * in the route's 200 `ApiResponse`.
 */
export function SendsDeprecation(d: AnswerDeprecation): MethodDecorator {
  return applyDecorators(
    Header('Deprecation', `@${Math.floor(d.since.getTime() / 1000)}`),
    Header('Sunset', d.sunset.toUTCString()),
  );
}
