import { codesOf, ErrorTable } from './entry';

/** Codes the gateway sends itself, without reaching a module. */
export const GATEWAY_ERRORS = {
  httpsRequired: {
    code: 'https_required',
    status: 400,
    meaning: 'The request came over plain HTTP; nothing was processed and the connection is closed.',
  },
  unknownHost: {
    code: 'unknown_host',
    status: 404,
    meaning: 'No module is served at the host name of the request.',
  },
  notImplemented: {
    code: 'not_implemented',
    status: 501,
    meaning:
      'The request uses a transfer coding other than `chunked`, which the gateway does not implement; nothing was forwarded and the connection is closed.',
  },
  badGateway: {
    code: 'bad_gateway',
    status: 502,
    meaning: 'The module behind the host name could not be reached.',
  },
  gatewayTimeout: {
    code: 'gateway_timeout',
    status: 504,
    meaning: 'The module did not answer in time.',
  },
  httpVersionNotSupported: {
    code: 'http_version_not_supported',
    status: 505,
    meaning:
      'The request line names an HTTP version other than 1.0 or 1.1 (the gateway speaks HTTP/1.1 only); nothing was forwarded and the connection is closed.',
  },
} as const satisfies ErrorTable;

export const GATEWAY_ERROR_CODES = codesOf(GATEWAY_ERRORS);
