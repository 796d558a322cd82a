import { Injectable } from '@nestjs/common';
import type { AgreementDto, Principal } from '@vault/contracts';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { AgreementEntity } from '../../persistence/agreements/agreement.entity';
import { AgreementRepository } from '../../persistence/agreements/agreement.repository';

/** Consents of the caller's account: appended, the newest per type read back. */
@Injectable()
export class AgreementsService {
  constructor(
    private readonly agreements: AgreementRepository,
    private readonly own: OwnAccountService,
  ) {}

  /** The newest consent per agreement type of the caller's account. */
  async latest(p: Principal, id: string): Promise<AgreementEntity[]> {
    const account = await this.own.ownById(p, id);
    return this.agreements.latestPerType(account.id);
  }

  async add(p: Principal, id: string, dto: AgreementDto): Promise<string> {
    let created!: string;
    await this.own.mutate(p, id, async (account, tx) => {
      [created] = await this.agreements.append(tx, account.id, [dto]);
    });
    return created;
  }
}
