import { PreconditionFailedError, VaultApiError } from './errors';
import { etagOf, ifMatch, ifNoneMatch, updateWithETag } from './etag';

const stale = () => new PreconditionFailedError({ status: 412, code: 'precondition_failed' }, new Headers());

describe('ETag helpers', () => {
  it('reads the tag and builds the conditional headers', () => {
    expect(etagOf(new Response(null, { headers: { etag: '"v.2"' } }))).toBe('"v.2"');
    expect(ifMatch('"v.2"')).toEqual({ 'if-match': '"v.2"' });
    expect(ifNoneMatch(undefined)).toEqual({});
  });

  it('reads again and writes again after a 412, with the new tag', async () => {
    let version = 1;
    const sent: string[] = [];
    const result = await updateWithETag(
      async () => ({ data: { name: 'a' }, etag: `"v.${version}"` }),
      async (current, etag) => {
        sent.push(String(etag));
        if (version++ < 3) throw stale();
        return `${current.name}!`;
      },
    );
    expect(result).toBe('a!');
    expect(sent).toEqual(['"v.1"', '"v.2"', '"v.3"']);
  });

  it('gives up after its attempts, and never retries other errors', async () => {
    const read = async () => ({ data: 1, etag: '"x"' });
    await expect(updateWithETag(read, async () => Promise.reject(stale()), 2)).rejects.toBeInstanceOf(PreconditionFailedError);
    let writes = 0;
    const other = new VaultApiError({ status: 409, code: 'conflict' }, new Headers());
    await expect(updateWithETag(read, async () => (writes++, Promise.reject(other)))).rejects.toBe(other);
    expect(writes).toBe(1);
  });
});
