import { invalidClient, invalidRequest } from './oauth.errors';
import type { OAuthForm } from './oauth-form';

/** The client credentials a token request presents, and how. */
export interface ClientCredentials {
  clientId: string;
  secret: string;
  /** Sent as `Authorization: Basic` (client_secret_basic); else in the form (client_secret_post). */
  viaBasic: boolean;
}

/**
 * The client credentials of a token request: client_secret_basic (`Authorization: Basic`
 * with the form-encoded id and secret, RFC 6749 §2.3.1) or client_secret_post
 * (`client_id` and `client_secret` in the form), never both.
 */
export function clientCredentials(form: OAuthForm, authorization: string | undefined): ClientCredentials {
  if (authorization !== undefined) {
    if (form.has('client_secret'))
      throw invalidRequest('Use one client authentication method: Basic or client_secret, not both.');
    const basic = parseBasic(authorization);
    const posted = form.get('client_id');
    if (posted !== undefined && posted !== basic.clientId) throw invalidClient(true);
    return { ...basic, viaBasic: true };
  }
  const clientId = form.get('client_id');
  const secret = form.get('client_secret');
  if (clientId === undefined || secret === undefined) throw invalidClient(false);
  return { clientId, secret, viaBasic: false };
}

function parseBasic(header: string): { clientId: string; secret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match) throw invalidClient(true);
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw invalidClient(true);
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient(true);
  }
}

/** application/x-www-form-urlencoded decoding of one value (RFC 6749 Appendix B). */
const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
