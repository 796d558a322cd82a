import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { COMMON_ERRORS, FileExportedEvent, Principal, SUBJECTS, VaultKeyExportedEvent } from '@vault/contracts';
import { reauthenticationRequired, signedInWithin } from '@vault/platform/auth';
import { ProblemException } from '@vault/platform/errors';
import { type ByteRange, rangeIfUnchanged } from '@vault/platform/http';
import { Transactions } from '@vault/platform/persistence';
import { isUuid, type VaultAccess } from '../../capabilities/access/access.service';
import { CatalogueService } from '../../capabilities/catalogue/catalogue.service';
import { BlobCipherService } from '../../capabilities/encryption/blob-cipher.service';
import { EncryptionEnv } from '../../capabilities/encryption/encryption.env';
import { encryptionProblem } from '../../capabilities/encryption/encryption.problems';
import { VaultKeysService } from '../../capabilities/encryption/vault-keys.service';
import { eventBase, fileEvent } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { FileBytesService } from '../../capabilities/storage/file-bytes.service';
import { MissingObjectError } from '../../capabilities/storage/file-storage';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import { RecordFileRepository } from '../../persistence/record-files/record-file.repository';
import { RecordRepository } from '../../persistence/records/record.repository';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';

/**
 * A file as a standard `.age` file (its envelope, then the stored object), or the range of it
 * asked for. `etag` only when the same request gives the very same bytes again: the envelope
 * is the one stored for this vault (one sealed to another vault is rewrapped for each export,
 * with a new ephemeral key), so only then are ranges served.
 */
export interface AgeFile {
  fileName: string;
  /** Bytes of the whole `.age` file. */
  length: number;
  etag?: string;
  /** The range sent (206), or undefined for the whole file (200). */
  range?: ByteRange;
  body: Readable;
}

/** How an export was asked for: the `Range` and `If-Range` request headers, and whether it is a HEAD. */
export interface AgeRequest {
  range?: string;
  ifRange?: string;
  /** The answer's headers only: no byte is read or sent, and no export recorded. */
  headOnly?: boolean;
}

const fileNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The file does not exist.');
const rangeNotSatisfiable = (size: number) =>
  ProblemException.of(COMMON_ERRORS.rangeNotSatisfiable, 'The range lies beyond the end of the .age file.', {
    headers: { 'Content-Range': `bytes */${size}` },
  });

/**
 * What a vault's owner can take away to read the vault's files without the platform: the
 * vault's age identity, and each file as a standard `.age` file (docs/encryption.md,
 * Leaving with your files). Every export is recorded before its answer starts: an event
 * through the outbox (`vault.key.exported`, `file.exported`: activity log, webhooks) and an
 * `audit:` log line naming vault and caller; an export that cannot be recorded is refused.
 */
@Injectable()
export class VaultEncryptionService {
  private readonly log = new Logger('VaultEncryptionAudit');

  constructor(
    private readonly vaultKeys: VaultKeysService,
    private readonly cipher: BlobCipherService,
    private readonly files: RecordFileRepository,
    private readonly seals: BlobEnvelopeRepository,
    private readonly bytes: FileBytesService,
    private readonly records: RecordRepository,
    private readonly catalogue: CatalogueService,
    private readonly events: EventPublisher,
    private readonly tx: Transactions,
    private readonly env: EncryptionEnv,
  ) {}

  /**
   * `AGE-SECRET-KEY-1…` of the vault (its key is made first if it has none yet), for a caller
   * who signed in within ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS: the identity opens every file
   * of the vault, so a token refreshed from an old sign-in is not enough.
   */
  async identity(access: VaultAccess, principal: Principal): Promise<string> {
    const maxAge = this.env.ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS;
    if (!signedInWithin(principal, maxAge)) throw reauthenticationRequired(maxAge);
    const vaultId = access.vault.id;
    try {
      await this.vaultKeys.recipient(vaultId);
      const identity = await this.vaultKeys.exportIdentity(vaultId);
      const event: VaultKeyExportedEvent = eventBase(principal, access.vault);
      await this.tx.run((tx) => this.events.publish(tx, SUBJECTS.vaultKeyExported, event));
      this.log.warn(`audit: identity of vault ${vaultId} exported by ${principal.openId} (token ${principal.tokenId})`);
      return identity;
    } catch (err) {
      throw encryptionProblem(err);
    }
  }

  /**
   * The current bytes of a file as a `.age` file sealed to this vault's key (rewrapped if it was
   * sealed to another), whole or the one range asked for (`Range`, with `If-Range` naming the
   * ETag the earlier bytes came with; another tag sends it whole). A range beyond the end is
   * refused with 416 before anything is recorded; every answer that sends bytes is an export
   * (a HEAD sends none).
   */
  async ageFile(
    access: VaultAccess,
    principal: Principal,
    recordId: string,
    fileName: string,
    ask: AgeRequest = {},
  ): Promise<AgeFile> {
    const file = isUuid(recordId) ? await this.files.find(recordId, fileName) : null;
    if (!file) throw fileNotFound();
    // blobs belong to the vault of their record's files: another vault's record is not found here
    const seal = await this.seals.byStorageKey(file.storageKey);
    if (!seal || seal.vaultId !== access.vault.id) throw fileNotFound();
    if (!seal.envelope || !seal.envelopeVaultId) {
      throw ProblemException.of(
        COMMON_ERRORS.conflict,
        'The file is stored from before encryption at rest and not encrypted yet; the background job seals it shortly.',
      );
    }
    const vaultId = access.vault.id;
    const stored = seal.envelopeVaultId === vaultId;
    try {
      const envelope = stored ? seal.envelope : await this.cipher.rewrap(seal.envelope, seal.envelopeVaultId, vaultId);
      const length = envelope.length + this.cipher.storedSize(seal.size);
      const etag = stored ? ageETag(envelope, file.storageKey) : undefined;
      const range = etag ? rangeIfUnchanged(ask.range, ask.ifRange, etag, length) : undefined;
      if (range === 'unsatisfiable') throw rangeNotSatisfiable(length);
      const answer = { fileName: `${file.fileName}.age`, length, etag, range };
      // a HEAD sends no byte: nothing is read, nothing exported
      if (ask.headOnly) return { ...answer, body: Readable.from([]) };
      const { start, end } = range ?? { start: 0, end: length - 1 };
      const head = envelope.subarray(start, end + 1);
      // the stored object's part of the range, if any (the envelope alone needs no read)
      const object =
        end >= envelope.length
          ? await this.bytes.openStored(file.storageKey, {
              start: Math.max(0, start - envelope.length),
              end: end - envelope.length,
            })
          : undefined;
      await this.recordFileExport(access, principal, file).catch((err: unknown) => {
        object?.destroy();
        throw err;
      });
      this.log.warn(
        `audit: file ${file.id} of vault ${vaultId} exported as .age by ${principal.openId}${range ? ` (bytes ${start}-${end})` : ''}`,
      );
      const body = Readable.from(prepend(head, object));
      // a body destroyed before it read the object (the client gone) lets go of the object too
      if (object) body.once('close', () => object.destroy());
      return { ...answer, body };
    } catch (err) {
      throw err instanceof MissingObjectError ? fileNotFound() : encryptionProblem(err);
    }
  }

  /** The `file.exported` event of an export, written through the outbox. */
  private async recordFileExport(access: VaultAccess, principal: Principal, file: RecordFileEntity): Promise<void> {
    const record = (await this.records.byIds([file.recordId])).get(file.recordId);
    if (!record) throw fileNotFound();
    const type = await this.catalogue.type(record.recordTypeId);
    const event: FileExportedEvent = fileEvent(eventBase(principal, access.vault), record, type.name, file);
    await this.tx.run((tx) => this.events.publish(tx, SUBJECTS.fileExported, event));
  }
}

async function* prepend(head: Buffer, rest: Readable | undefined): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  if (rest) for await (const chunk of rest) yield chunk as Buffer;
}

/**
 * The strong ETag of a `.age` file whose envelope is stored for its vault: the envelope and the
 * stored object (written once under its key) make its bytes. A new version of the file (a new
 * key) or an envelope rewrapped by a move or an erase changes it.
 */
function ageETag(envelope: Buffer, storageKey: string): string {
  return `"age-${createHash('sha256').update(envelope).update('\0').update(storageKey).digest('hex')}"`;
}
