import { Injectable } from '@nestjs/common';
import { newEnvelope, openEnvelope, rewrapEnvelope } from './age-header';
import { OpenStream, SealStream, sealedRange, sealedSize } from './age-stream';
import { SealedObjectError } from './encryption.errors';
import { countRejectedObject, exportEncryptionMetrics } from './encryption.metrics';
import { EncryptionEnv } from './encryption.env';
import { KeyConfigurationError } from './key-configuration.error';
import { VaultKeysService } from './vault-keys.service';

/** A plaintext byte range to serve, and the stored object's bytes to read for it. */
export interface RangeOpening {
  /** Inclusive offsets to read from the stored object. */
  objectStart: number;
  objectEnd: number;
  /** Decrypts those bytes to exactly the requested plaintext range. */
  stream: OpenStream;
}

/**
 * Encryption of file bodies for the storage layer: a blob is written through `seal` (its
 * envelope goes on the blob row, the stream's output into the store) and read through
 * `open`/`openRange`. Encrypting needs only the vault's public key; reading unwraps the
 * vault key (cached). A damaged object fails the stream with a SealedObjectError and is
 * counted (vault_encrypted_objects_rejected_total).
 */
@Injectable()
export class BlobCipherService {
  constructor(
    private readonly vaultKeys: VaultKeysService,
    private readonly env?: EncryptionEnv,
  ) {
    exportEncryptionMetrics();
    if (env && env.ENCRYPTION_AT_REST !== 'on' && env.NODE_ENV === 'production') {
      throw new KeyConfigurationError('ENCRYPTION_AT_REST=plaintext is for benchmarks only and refused in production');
    }
  }

  /** Whether new uploads are encrypted (always, except in a benchmark of the plaintext path). */
  get atRest(): boolean {
    return (this.env?.ENCRYPTION_AT_REST ?? 'on') === 'on';
  }

  /** A new envelope for a blob of `vaultId` and the stream that encrypts its plaintext. */
  async seal(vaultId: string): Promise<{ envelope: Buffer; stream: SealStream }> {
    const { envelope, key } = newEnvelope(await this.vaultKeys.recipient(vaultId));
    return { envelope, stream: new SealStream(key) };
  }

  /** A new envelope for a blob of `vaultId` that is sealed chunk by chunk later (a resumable upload). */
  async newEnvelope(vaultId: string): Promise<Buffer> {
    return newEnvelope(await this.vaultKeys.recipient(vaultId)).envelope;
  }

  /** The payload key of an envelope sealed to `vaultId` (unwraps the vault key, cached). */
  payloadKeyOf(vaultId: string, envelope: Buffer): Promise<Buffer> {
    return this.payloadKey(vaultId, envelope);
  }

  /** Decrypts a whole stored object. */
  async open(vaultId: string, envelope: Buffer): Promise<OpenStream> {
    return this.watched(new OpenStream(await this.payloadKey(vaultId, envelope)));
  }

  /** Decrypts plaintext bytes start..end (inclusive) of a blob of `size` bytes, reading only the chunks they touch. */
  async openRange(vaultId: string, envelope: Buffer, size: number, start: number, end: number): Promise<RangeOpening> {
    const range = sealedRange(size, start, end);
    const stream = this.watched(new OpenStream(await this.payloadKey(vaultId, envelope), range.options));
    return { objectStart: range.objectStart, objectEnd: range.objectEnd, stream };
  }

  /** The same blob's envelope for another vault (a record moved there): no stored byte changes. */
  async rewrap(envelope: Buffer, fromVaultId: string, toVaultId: string): Promise<Buffer> {
    const identity = await this.vaultKeys.identity(fromVaultId);
    return rewrapEnvelope(envelope, identity, await this.vaultKeys.recipient(toVaultId));
  }

  /** Size of the stored object for `size` plaintext bytes. */
  storedSize(size: number): number {
    return sealedSize(size);
  }

  private async payloadKey(vaultId: string, envelope: Buffer): Promise<Buffer> {
    try {
      return openEnvelope(envelope, await this.vaultKeys.identity(vaultId));
    } catch (err) {
      if (err instanceof SealedObjectError) countRejectedObject(err.kind);
      throw err;
    }
  }

  private watched(stream: OpenStream): OpenStream {
    stream.once('error', (err) => {
      if (err instanceof SealedObjectError) countRejectedObject(err.kind);
    });
    return stream;
  }
}
