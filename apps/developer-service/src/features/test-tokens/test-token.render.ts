import { createHash } from 'node:crypto';
import type { TokenResponseDto } from '@vault/contracts';

/** Namespace of test identity ids (UUID v5, RFC 9562). */
const TEST_IDENTITY_NAMESPACE = '3f6b8a52-4c1e-5d7a-9b0e-7a1c2d3e4f50';

/**
 * The stable id of the dedicated test identity of one application: a UUID v5
 * of (tenant, client), so every test token of an application has the same sub
 * and none ever names a real organisation user.
 */
export function testIdentityId(tenantId: string, clientId: string): string {
  const ns = Buffer.from(TEST_IDENTITY_NAMESPACE.replace(/-/g, ''), 'hex');
  const bytes = createHash('sha1')
    .update(Buffer.concat([ns, Buffer.from(`${tenantId}/${clientId}`, 'utf8')]))
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Username carried by test tokens (preferred_username). */
export const TEST_IDENTITY_USERNAME = 'test-user';

/** The redirect URI with the token in its fragment (replacing any fragment it had). */
export function redirectWithToken(redirectUri: string, token: TokenResponseDto): string {
  const url = new URL(redirectUri);
  url.hash = new URLSearchParams({
    access_token: token.access_token,
    token_type: token.token_type,
    expires_in: String(token.expires_in),
  }).toString();
  return url.toString();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small self-contained page showing a test token. */
export function renderTokenPage(tenantId: string, clientId: string, token: TokenResponseDto): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test access token</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}textarea{width:100%;font-family:monospace}</style>
</head>
<body>
<h1>Test access token</h1>
<p>Tenant <code>${e(tenantId)}</code>, client <code>${e(clientId)}</code>.
Token type <code>${e(token.token_type)}</code>, expires in ${token.expires_in} seconds.</p>
<textarea id="access_token" rows="8" readonly>${e(token.access_token)}</textarea>
<p>Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
</body>
</html>
`;
}
