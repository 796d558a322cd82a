import { UnreadableFile } from './extraction.types';

/**
 * Refuses an Office/ODF archive that would inflate past `maxInflated` bytes (or more than
 * 200 times its size), from its central directory alone, before any entry is inflated.
 * The sizes a zip declares can lie: the extractor process's memory watch is the backstop.
 */
export function assertZipBounded(bytes: Uint8Array, maxInflated: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) throw new UnreadableFile('corrupt', 'no zip central directory');
  const entries = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  let total = 0;
  for (let i = 0; i < entries; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== 0x02014b50) {
      throw new UnreadableFile('corrupt', 'bad zip central directory');
    }
    const inflated = view.getUint32(at + 24, true);
    if (inflated === 0xffffffff) throw new UnreadableFile('zip_bomb', 'zip64 entry');
    total += inflated;
    if (total > maxInflated || total > bytes.byteLength * 200 + 1_000_000) {
      throw new UnreadableFile('zip_bomb', `inflates to more than ${Math.min(total, maxInflated)} bytes`);
    }
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
}

function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - 22;
  for (let i = last; i >= Math.max(0, last - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) return i;
  }
  return -1;
}
