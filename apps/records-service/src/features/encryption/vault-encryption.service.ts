import { Readable } from 'node:stream';
import { Injectable, Logger } from '@nestjs/common';
import { COMMON_ERRORS, FileExportedEvent, Principal, SUBJECTS, VaultKeyExportedEvent } from '@vault/contracts';
import { reauthenticationRequired, signedInWithin } from '@vault/platform/auth';
import { ProblemException } from '@vault/platform/errors';
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

/** A file as a standard `.age` file: its envelope, then the stored object. */
export interface AgeFile {
  fileName: string;
  length: number;
  body: Readable;
}

const fileNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The file does not exist.');

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

  /** The current bytes of a file as a `.age` file sealed to this vault's key (rewrapped if it was sealed to another). */
  async ageFile(access: VaultAccess, principal: Principal, recordId: string, fileName: string): Promise<AgeFile> {
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
    try {
      const envelope =
        seal.envelopeVaultId === vaultId ? seal.envelope : await this.cipher.rewrap(seal.envelope, seal.envelopeVaultId, vaultId);
      const object = await this.bytes.openStored(file.storageKey);
      await this.recordFileExport(access, principal, file).catch((err: unknown) => {
        object.destroy();
        throw err;
      });
      this.log.warn(`audit: file ${file.id} of vault ${vaultId} exported as .age by ${principal.openId}`);
      return {
        fileName: `${file.fileName}.age`,
        length: envelope.length + this.cipher.storedSize(seal.size),
        body: Readable.from(prepend(envelope, object)),
      };
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

async function* prepend(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  yield head;
  for await (const chunk of rest) yield chunk as Buffer;
}
