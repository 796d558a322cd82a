/**
 * Bech32 (BIP 173) without its 90-character limit, as age encodes recipients (`age1…`)
 * and identities (`AGE-SECRET-KEY-1…`).
 */
const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATOR[i];
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >> 5), 0, ...codes.map((c) => c & 31)];
}

function convertBits(data: Iterable<number>, from: number, to: number, pad: boolean): number[] {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const maxv = (1 << to) - 1;
  for (const value of data) {
    acc = (acc << from) | value;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & maxv);
    }
  }
  if (pad && bits > 0) out.push((acc << (to - bits)) & maxv);
  else if (!pad && (bits >= from || ((acc << (to - bits)) & maxv) !== 0)) {
    throw new Error('bech32: bad padding');
  }
  return out;
}

export function bech32Encode(hrp: string, bytes: Uint8Array): string {
  const words = convertBits(bytes, 8, 5, true);
  const mod = polymod([...hrpExpand(hrp), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => CHARSET[w]).join('')}`;
}

/** Decodes a Bech32 string of the given (lowercase) prefix; throws on any mistake. */
export function bech32Decode(expectedHrp: string, text: string): Buffer {
  if (text !== text.toLowerCase() && text !== text.toUpperCase()) throw new Error('bech32: mixed case');
  const lower = text.toLowerCase();
  const sep = lower.lastIndexOf('1');
  if (lower.slice(0, sep) !== expectedHrp) throw new Error(`bech32: expected prefix ${expectedHrp}`);
  const words = [...lower.slice(sep + 1)].map((c) => {
    const w = CHARSET.indexOf(c);
    if (w < 0) throw new Error('bech32: bad character');
    return w;
  });
  if (words.length < 6 || polymod([...hrpExpand(expectedHrp), ...words]) !== 1) {
    throw new Error('bech32: bad checksum');
  }
  return Buffer.from(convertBits(words.slice(0, -6), 5, 8, false));
}
