import { registerDecorator, ValidationOptions } from 'class-validator';

/** Longest URL a URL field holds. */
export const MAX_URL_LENGTH = 2048;

/** Host names that only ever reach the caller's own machine: http is allowed for them (development). */
function isLocalHost(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}

/**
 * The rule of every URL field (docs/errors.md, URL fields): an absolute `https:` URL
 * with a host and without credentials; `http:` only for a local host (localhost,
 * *.localhost, 127.0.0.0/8, [::1]), for development. Anything else — `javascript:`,
 * `data:`, relative paths, bare host names — is refused.
 */
export function isWebUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return false;
  // The WHATWG parser forgives spaces, tabs, backslashes and missing slashes; a stored URL may not rely on that.
  if (!/^https?:\/\/[^\s\\]+$/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || !url.hostname) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLocalHost(url.hostname));
}

/** The one validator of URL fields: see isWebUrl. */
export function IsWebUrl(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isWebUrl',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: `${String(propertyName)} must be an https URL of at most ${MAX_URL_LENGTH} characters (http only for localhost)`,
        ...options,
      },
      validator: { validate: isWebUrl },
    });
}
