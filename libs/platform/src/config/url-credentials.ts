/**
 * One URL of a setting's value: from its start or from a comma followed by a scheme (NATS_URL
 * lists servers: `nats://a:4222,nats://b:4222`) to the next such comma. A comma not followed by
 * a scheme belongs to the URL (a password may hold one).
 */
const ENTRY = /(^|,)(\s*(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?)(.*?)(?=,\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/|$)/gs;

/**
 * A URL setting's value fit for a message or a log line: the password of its user information
 * replaced by `***` (`postgres://vault:***@db:5432/vault`), and a user name given alone too
 * (`nats://***@nats:4222`: NATS takes it as a token). Lists are shown URL by URL. Malformed
 * values are covered as well: whatever precedes a URL's last `@` counts as its user
 * information, so a password holding `@`, `/` or spaces is hidden whole.
 */
export function redactUrl(value: string): string {
  return value.replace(ENTRY, (_all, comma: string, scheme: string, rest: string) => `${comma}${scheme}${hideUserinfo(rest)}`);
}

function hideUserinfo(rest: string): string {
  const at = rest.lastIndexOf('@');
  if (at < 0) return rest;
  const colon = rest.indexOf(':');
  const user = colon > 0 && colon < at ? `${rest.slice(0, colon)}:` : '';
  return `${user}***${rest.slice(at)}`;
}

/**
 * `text` (a library's error message) with every copy of `url`, or of one URL of its list, shown
 * through redactUrl.
 */
export function redactUrlIn(text: string, url: string): string {
  const copies = [url, ...[...url.matchAll(ENTRY)].map((m) => `${m[2]}${m[3]}`.trim())].filter((c) => c.includes('@'));
  return copies.reduce((shown, copy) => shown.split(copy).join(redactUrl(copy)), text);
}

/**
 * The error a service start raises when it cannot reach what a URL setting names: the setting,
 * the URL without its credentials and the reason (any copy of the URL in it shown the same way).
 * The library's error is not kept as the cause, so that nothing it carries is printed.
 */
export function connectionFailure(target: string, setting: string, url: string, err: unknown): Error {
  const reason = err instanceof Error ? err.message : String(err);
  return new Error(`cannot connect to ${target} (${setting}=${redactUrl(url)}): ${redactUrlIn(reason, url)}`);
}
