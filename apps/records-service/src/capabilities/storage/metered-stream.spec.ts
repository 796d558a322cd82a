import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MeteredStream } from './metered-stream';

const sink = () => new Writable({ write: (_c, _e, cb) => cb() });
const tooBig = (limit: number) => new Error(`over ${limit}`);

describe('MeteredStream', () => {
  it('counts and hashes what passes through', async () => {
    const meter = new MeteredStream(10, tooBig);
    await pipeline(Readable.from([Buffer.from('hello'), Buffer.from('world')]), meter, sink());
    expect(meter.result()).toEqual({ size: 10, sha256: createHash('sha256').update('helloworld').digest('hex') });
  });

  it('fails as soon as the limit is passed', async () => {
    const meter = new MeteredStream(9, tooBig);
    await expect(pipeline(Readable.from([Buffer.from('hello'), Buffer.from('world')]), meter, sink())).rejects.toThrow('over 9');
  });
});
