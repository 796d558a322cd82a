import { Injectable } from '@nestjs/common';
import {
  COMMON_ERRORS,
  COMPLIANCE_ROLE,
  HoldListQueryDto,
  LegalHoldView,
  PlaceHoldDto,
  Principal,
  RetentionView,
  TRASH_ERRORS,
} from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { Transactions } from '@vault/platform/persistence';
import { isUuid, routeRecordId, type VaultAccess } from '../../capabilities/access/access.service';
import { actorName } from '../../capabilities/events/event-payload';
import { RetentionService, toHoldView } from '../../capabilities/retention/retention.service';
import { LegalHoldRepository } from '../../persistence/legal-holds/legal-hold.repository';
import { RecordFileRepository } from '../../persistence/record-files/record-file.repository';

const complianceOnly = () =>
  ProblemException.of(TRASH_ERRORS.complianceRoleRequired, 'Only a compliance officer of the tenant manages legal holds.');
const holdNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such legal hold.');
const targetNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such vault, record or file in the tenant.');
const fileWithoutRecord = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The request has 1 invalid field.', {
    errors: [{ field: 'recordId', message: 'recordId is required with fileId' }],
  });
const released = () => ProblemException.of(TRASH_ERRORS.holdReleased, 'The legal hold was released already.');
const fileNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The file does not exist.');

/**
 * Legal holds (docs/records-api.md, Retention and legal holds): a tenant's compliance
 * officer (token role `compliance`) places named holds on any vault, record or file of the
 * tenant, whatever its vault roles; a hold keeps what it covers from purge until released.
 * And the retention answer of a vault, record or file.
 */
@Injectable()
export class LegalHoldsService {
  constructor(
    private readonly tx: Transactions,
    private readonly holds: LegalHoldRepository,
    private readonly files: RecordFileRepository,
    private readonly retention: RetentionService,
  ) {}

  async place(principal: Principal, dto: PlaceHoldDto): Promise<LegalHoldView> {
    assertCompliance(principal);
    if (dto.fileId && !dto.recordId) throw fileWithoutRecord();
    const scope = { vaultId: dto.vaultId, recordId: dto.recordId ?? null, fileId: dto.fileId ?? null };
    if (!(await this.holds.targetExists(principal.tenantId, scope))) throw targetNotFound();
    const hold = await this.tx.run((tx) =>
      this.holds.insert(tx, {
        tenantId: principal.tenantId,
        ...scope,
        name: dto.name,
        reason: dto.reason ?? null,
        placedBy: actorName(principal),
      }),
    );
    return toHoldView(hold);
  }

  async list(principal: Principal, q: HoldListQueryDto): Promise<LegalHoldView[]> {
    assertCompliance(principal);
    return (await this.holds.list(principal.tenantId, q.vaultId, q.includeReleased === 'true')).map(toHoldView);
  }

  async get(principal: Principal, holdId: string): Promise<LegalHoldView> {
    assertCompliance(principal);
    if (!isUuid(holdId)) throw holdNotFound();
    const hold = await this.tx.run((tx) => this.holds.lock(tx, principal.tenantId, holdId));
    if (!hold) throw holdNotFound();
    return toHoldView(hold);
  }

  async release(principal: Principal, holdId: string): Promise<LegalHoldView> {
    assertCompliance(principal);
    if (!isUuid(holdId)) throw holdNotFound();
    return this.tx.run(async (tx) => {
      const hold = await this.holds.lock(tx, principal.tenantId, holdId);
      if (!hold) throw holdNotFound();
      if (hold.releasedAt) throw released();
      return toHoldView(await this.holds.release(tx, hold.id, actorName(principal)));
    });
  }

  /** What keeps the vault of the route, its record, or a file of the record from purge, and until when. */
  async retentionOf(access: VaultAccess, fileName?: string): Promise<RetentionView> {
    const vaultId = access.vault.id;
    if (fileName !== undefined) {
      const file = await this.files.find(routeRecordId(access), fileName);
      if (!file) throw fileNotFound();
      return this.retention.explain('file', file.id, { vaultId, recordId: file.recordId, fileId: file.id }, file);
    }
    if (access.record) {
      const { record } = access;
      return this.retention.explain('record', record.id, { vaultId, recordId: record.id }, record);
    }
    return this.retention.explain('vault', vaultId, { vaultId }, access.vault);
  }
}

function assertCompliance(principal: Principal): void {
  if (!principal.roles?.includes(COMPLIANCE_ROLE)) throw complianceOnly();
}
