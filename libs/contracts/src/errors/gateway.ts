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
} as const satisfies ErrorTable;

export const GATEWAY_ERROR_CODES = codesOf(GATEWAY_ERRORS);
