import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { SealedObjectError } from './encryption.errors';
import { newSecretKey, publicKeyOf, x25519 } from './x25519';

/**
 * The age v1 header (https://age-encryption.org/v1) with one X25519 recipient stanza,
 * followed by the payload's 16-byte nonce. This "envelope" is kept in the database beside
 * the blob row; the stored object holds the STREAM chunks only, so envelope + object is a
 * standard `.age` file.
 */
const INTRO = 'age-encryption.org/v1\n';
const X25519_LABEL = 'age-encryption.org/v1/X25519';
const FILE_KEY_BYTES = 16;
export const PAYLOAD_NONCE_BYTES = 16;
const ZERO_NONCE = Buffer.alloc(12);

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
const hkdf = (ikm: Buffer, salt: Buffer, info: string) => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));

function chacha(key: Buffer, data: Buffer): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, ZERO_NONCE, { authTagLength: 16 });
  return Buffer.concat([c.update(data), c.final(), c.getAuthTag()]);
}

function unchacha(key: Buffer, sealed: Buffer): Buffer | null {
  if (sealed.length < 16) return null;
  const d = createDecipheriv('chacha20-poly1305', key, ZERO_NONCE, { authTagLength: 16 });
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  try {
    return Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]);
  } catch {
    return null;
  }
}

/** Base64 body lines of a stanza: full 64-column lines, then a shorter (maybe empty) last one. */
function bodyLines(body: Buffer): string {
  const text = b64(body);
  const lines: string[] = [];
  for (let i = 0; i <= text.length; i += 64) lines.push(text.slice(i, i + 64));
  return lines.join('\n') + '\n';
}

function x25519Stanza(fileKey: Buffer, recipient: Buffer): string {
  const ephemeral = newSecretKey();
  const share = publicKeyOf(ephemeral);
  const wrapKey = hkdf(x25519(ephemeral, recipient), Buffer.concat([share, recipient]), X25519_LABEL);
  return `-> X25519 ${b64(share)}\n${bodyLines(chacha(wrapKey, fileKey))}`;
}

function headerMac(fileKey: Buffer, headerUpToDashes: string): Buffer {
  return createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(headerUpToDashes)
    .digest();
}

function buildEnvelope(fileKey: Buffer, recipient: Buffer, nonce: Buffer): Buffer {
  const upToDashes = `${INTRO}${x25519Stanza(fileKey, recipient)}---`;
  const mac = headerMac(fileKey, upToDashes);
  return Buffer.concat([Buffer.from(`${upToDashes} ${b64(mac)}\n`), nonce]);
}

/** The key of the payload STREAM, derived from the file key and the payload nonce. */
export function payloadKey(fileKey: Buffer, nonce: Buffer): Buffer {
  return hkdf(fileKey, nonce, 'payload');
}

/** A new envelope for `recipient` (a vault's X25519 public key) with a fresh file key and nonce. */
export function newEnvelope(recipient: Buffer): { envelope: Buffer; key: Buffer } {
  const fileKey = randomBytes(FILE_KEY_BYTES);
  const nonce = randomBytes(PAYLOAD_NONCE_BYTES);
  return { envelope: buildEnvelope(fileKey, recipient, nonce), key: payloadKey(fileKey, nonce) };
}

interface ParsedEnvelope {
  stanzas: { type: string; args: string[]; body: Buffer }[];
  upToDashes: string;
  mac: Buffer;
  nonce: Buffer;
}

function parseEnvelope(envelope: Buffer): ParsedEnvelope {
  const end = envelope.indexOf('\n---');
  const macEnd = end < 0 ? -1 : envelope.indexOf('\n', end + 4);
  if (end < 0 || macEnd < 0 || envelope.length - macEnd - 1 !== PAYLOAD_NONCE_BYTES) {
    throw new SealedObjectError('header', 'not an age v1 header followed by a payload nonce');
  }
  const text = envelope.subarray(0, end + 1).toString('latin1');
  if (!text.startsWith(INTRO)) throw new SealedObjectError('header', 'not an age v1 header');
  const stanzas: ParsedEnvelope['stanzas'] = [];
  for (const line of text.slice(INTRO.length, -1).split('\n')) {
    if (line.startsWith('-> ')) {
      const [type, ...args] = line.slice(3).split(' ');
      stanzas.push({ type, args, body: Buffer.alloc(0) });
    } else if (stanzas.length > 0) {
      const last = stanzas[stanzas.length - 1];
      last.body = Buffer.concat([last.body, Buffer.from(line, 'base64')]);
    } else throw new SealedObjectError('header', 'a stanza body without a stanza');
  }
  const macLine = envelope.subarray(end + 1, macEnd).toString('latin1');
  if (!macLine.startsWith('--- ')) throw new SealedObjectError('header', 'bad MAC line');
  return {
    stanzas,
    upToDashes: envelope.subarray(0, end + 4).toString('latin1'),
    mac: Buffer.from(macLine.slice(4), 'base64'),
    nonce: envelope.subarray(macEnd + 1),
  };
}

function fileKeyFor(parsed: ParsedEnvelope, identity: Buffer): Buffer {
  const ownPublic = publicKeyOf(identity);
  for (const s of parsed.stanzas) {
    if (s.type !== 'X25519' || s.args.length !== 1) continue;
    const share = Buffer.from(s.args[0], 'base64');
    if (share.length !== 32) continue;
    const wrapKey = hkdf(x25519(identity, share), Buffer.concat([share, ownPublic]), X25519_LABEL);
    const fileKey = unchacha(wrapKey, s.body);
    if (fileKey?.length === FILE_KEY_BYTES) {
      const mac = headerMac(fileKey, parsed.upToDashes);
      if (parsed.mac.length !== mac.length || !timingSafeEqual(parsed.mac, mac)) {
        throw new SealedObjectError('header', 'header MAC mismatch');
      }
      return fileKey;
    }
  }
  throw new SealedObjectError('header', 'no recipient stanza opens with this vault key');
}

/** The payload key of an envelope, opened with the vault's X25519 secret key. */
export function openEnvelope(envelope: Buffer, identity: Buffer): Buffer {
  const parsed = parseEnvelope(envelope);
  return payloadKey(fileKeyFor(parsed, identity), parsed.nonce);
}

/**
 * The same file key and payload nonce sealed to another recipient (a vault re-key or a
 * record moved to another vault): a new envelope for the same stored bytes.
 */
export function rewrapEnvelope(envelope: Buffer, identity: Buffer, newRecipient: Buffer): Buffer {
  const parsed = parseEnvelope(envelope);
  return buildEnvelope(fileKeyFor(parsed, identity), newRecipient, parsed.nonce);
}

/** Length of the envelope at the start of a whole `.age` file (header and payload nonce). */
export function envelopeLength(ageFile: Buffer): number {
  const end = ageFile.indexOf('\n---');
  const macEnd = end < 0 ? -1 : ageFile.indexOf('\n', end + 4);
  if (macEnd < 0) throw new SealedObjectError('header', 'no age header');
  return macEnd + 1 + PAYLOAD_NONCE_BYTES;
}
