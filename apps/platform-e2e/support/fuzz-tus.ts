import fc from 'fast-check';

/**
 * Requests for the tus routes of the records module (docs/files.md, Resumable uploads):
 * a valid request of its method, then none, one or two hostile header values or a
 * hostile upload id in its place. The fuzz suite resolves two placeholders when it
 * sends one: LIVE, an upload the owner has open, and CURRENT, that upload's offset.
 */

export const LIVE = 'live-upload';
export const CURRENT = 'current-offset';
/** A header sent without it. */
const DROP = '(dropped)';
/** The Upload-Length of the valid creations: room for every small PATCH of a run (a chunk past it is a 413). */
export const TUS_UPLOAD_LENGTH = 1024 * 1024;

/**
 * The answers of a valid request: the tus answer, or 429 (the caller's rate limit, or as many
 * uploads open as one caller may have).
 */
export const TUS_SUCCESS: Record<string, number[]> = {
  POST: [201, 429],
  HEAD: [200, 429],
  PATCH: [204, 429],
  DELETE: [204, 429],
};

/** The tus routes: `…/uploads` (creation) and `…/uploads/{uploadId}`. */
export const isTusRoute = (template: string, method: string) =>
  /\/uploads(\/\{[^}]+\})?$/.test(template) && method.toUpperCase() in TUS_SUCCESS;

const b64 = (bytes: string | number[]) => Buffer.from(bytes as string).toString('base64');
const metadata = (fileName: string | number[]) =>
  `fileName ${b64(fileName)},correlationId ${b64('260101120000')},fileType ${b64('document')}`;

const HOSTILE: Record<string, string[]> = {
  'Tus-Resumable': [DROP, '0.2.2', '1.0', '', '1.0.0, 0.2.2', 'x'.repeat(300)],
  'Upload-Length': [DROP, '-1', '1.5', '1e3', 'abc', '', ' 5', '0x10', '18446744073709551616', '9'.repeat(40)],
  'Upload-Offset': [DROP, '-1', '1.5', 'abc', '', '+0', '99999999999999999999', '4097'],
  'Upload-Metadata': [
    DROP,
    '',
    ',,,',
    'fileName',
    'fileName ***',
    'fileName a b',
    `fileName ${b64('a.bin')},fileName ${b64('b.bin')}`,
    `evil ${b64('x')}`,
    `__proto__ ${b64('x')}`,
    metadata([0x61, 0xc3]), // a lone lead byte
    metadata([0xc0, 0xaf]), // an overlong slash
    metadata([0xed, 0xa0, 0x80]), // an encoded surrogate
    metadata([0x61, 0xe2, 0x82]), // cut off at the end
    metadata('x'.repeat(3000)),
  ],
  'Upload-Defer-Length': ['1', '0', 'x'],
  'Upload-Concat': ['partial', 'final;/a /b', 'final', 'x'],
  'Content-Type': [
    DROP,
    '',
    'application/json',
    'text/plain',
    'application/offset+octet-stream; x=1',
    'multipart/form-data; boundary=x',
  ],
  'Upload-Checksum': ['md5 abc', 'sha1 ***', 'sha256', `sha1 ${b64('not the digest')}`],
};

/** Upload ids that cannot be ours, besides the live one and a stranger's UUID. */
const HOSTILE_IDS = ['%00', 'a%00b', 'not-a-uuid', 'a%2Fb', '..', '%2e%2e', 'x'.repeat(300), '%E2%82%AC', '%E0%A4%A'];

export interface TusDraft {
  headers: Record<string, string>;
  raw?: Buffer;
  /** The upload id segment (LIVE, a UUID or a hostile one), for the routes of one upload. */
  id: string;
  /** What was made hostile; empty for a valid request. */
  mutations: string[];
}

function validOf(method: string): fc.Arbitrary<Omit<TusDraft, 'id' | 'mutations'>> {
  const tus = { 'Tus-Resumable': '1.0.0' };
  switch (method) {
    case 'POST':
      return fc.uuid().map((id) => ({
        headers: { ...tus, 'Upload-Length': String(TUS_UPLOAD_LENGTH), 'Upload-Metadata': metadata(`fuzz-${id}.bin`) },
      }));
    case 'PATCH':
      return fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => ({
        headers: { ...tus, 'Upload-Offset': CURRENT, 'Content-Type': 'application/offset+octet-stream' },
        raw: Buffer.from(bytes),
      }));
    default:
      return fc.constant({ headers: tus });
  }
}

/** One hostile header value, of any hostile header. */
const MUTATION = fc
  .constantFrom(...Object.keys(HOSTILE))
  .chain((header) => fc.constantFrom(...HOSTILE[header]).map((value) => [header, value] as const));

/** A tus request of this method: valid a third of the time, else with one or two hostile parts. */
export function tusDraftOf(method: string): fc.Arbitrary<TusDraft> {
  const id = fc.oneof(
    { weight: 6, arbitrary: fc.constant(LIVE) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_IDS) },
  );
  const mutations = fc.oneof(
    { weight: 1, arbitrary: fc.constant<(readonly [string, string])[]>([]) },
    { weight: 2, arbitrary: fc.array(MUTATION, { minLength: 1, maxLength: 2 }) },
  );
  return fc.record({ valid: validOf(method.toUpperCase()), id, mutations }).map(({ valid, id, mutations }) => {
    const headers = { ...valid.headers };
    for (const [header, value] of mutations) {
      if (value === DROP) delete headers[header as keyof typeof headers];
      else (headers as Record<string, string>)[header] = value;
    }
    const changed = mutations.map(([header]) => header);
    return { headers, raw: valid.raw, id, mutations: id === LIVE ? changed : [...changed, 'id'] };
  });
}
