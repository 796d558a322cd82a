import { COMMON_ERRORS } from '@vault/contracts';
import { REQUEST_ID_HEADER } from '@vault/platform/http';
import type { ServerResponse } from 'node:http';
import { closeAfterAnswer } from '../answers/early-answer';
import { sendProblem } from '../answers/problem-response';
import { withSecurityHeaders } from '../answers/security-headers';
import { ALLOWED_METHODS, allowedMethod, CorsCase, preflightHeaders } from './cors-rules';

/**
 * Answers a preflight itself, never forwarding it: 204 with the allowed methods and
 * headers for a registered origin; 403 `forbidden` for an origin no application
 * registered (no CORS headers, so the browser refuses the call); 400 `validation_failed`
 * when it asks for a method browsers may not use here.
 */
export function answerPreflight(
  res: ServerResponse,
  preflight: Extract<CorsCase, { kind: 'preflight' }>,
  requestId: string,
  close: boolean,
): void {
  if (!preflight.registered) {
    const detail = 'This origin is not registered for browser calls: no client application lists it in its allowed origins.';
    sendProblem(res, { entry: COMMON_ERRORS.forbidden, detail }, requestId, { close });
    return;
  }
  if (!allowedMethod(preflight.method)) {
    const detail = `Access-Control-Request-Method must be one of ${ALLOWED_METHODS.join(', ')}.`;
    sendProblem(res, { entry: COMMON_ERRORS.validationFailed, detail }, requestId, { close });
    return;
  }
  if (close) closeAfterAnswer(res);
  res.writeHead(204, withSecurityHeaders({ ...preflightHeaders(preflight.origin), [REQUEST_ID_HEADER]: requestId }, 204, true));
  res.end();
}
