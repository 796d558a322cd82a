import { isUtf8 } from 'node:buffer';

/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence
 * (RFC 3629: no overlong forms, no encoded surrogates, nothing above U+10FFFF, no
 * sequence cut off at the end), or -1 when the whole buffer is UTF-8.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return -1;
}

/** The length of the well-formed sequence at `i`, 0 when there is none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i];
  if (lead < 0x80) return 1;
  // the allowed range of the second byte per lead byte (RFC 3629 §4, Unicode table 3-7)
  let length: number, low: number, high: number;
  if (lead >= 0xc2 && lead <= 0xdf) [length, low, high] = [2, 0x80, 0xbf];
  else if (lead === 0xe0) [length, low, high] = [3, 0xa0, 0xbf];
  else if (lead === 0xed) [length, low, high] = [3, 0x80, 0x9f];
  else if (lead >= 0xe1 && lead <= 0xef) [length, low, high] = [3, 0x80, 0xbf];
  else if (lead === 0xf0) [length, low, high] = [4, 0x90, 0xbf];
  else if (lead === 0xf4) [length, low, high] = [4, 0x80, 0x8f];
  else if (lead >= 0xf1 && lead <= 0xf3) [length, low, high] = [4, 0x80, 0xbf];
  else return 0;
  if (i + length > bytes.length || bytes[i + 1] < low || bytes[i + 1] > high) return 0;
  for (let k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return 0;
  return length;
}
