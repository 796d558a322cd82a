import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import type { AgreementDto, AgreementResponse, Principal } from '@vault/contracts';
import { AccountsService } from '../accounts/accounts.service';
import { AgreementEntity } from './agreement.entity';

export function toAgreementResponse(a: AgreementEntity): AgreementResponse {
  return {
    id: a.id,
    _id: a.id,
    account: a.accountId,
    locale: a.locale,
    type: a.type,
    version: a.version,
    consent: a.consent,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

@Injectable()
export class AgreementsService {
  constructor(
    @InjectRepository(AgreementEntity) private readonly repo: Repository<AgreementEntity>,
    private readonly accounts: AccountsService,
  ) {}

  /** Appends consents in the given order; returns the id of each. */
  async append(m: EntityManager, accountId: string, dtos: AgreementDto[]): Promise<string[]> {
    const ids: string[] = [];
    for (const dto of dtos) {
      const id = randomUUID();
      await m.getRepository(AgreementEntity).insert({
        id,
        accountId,
        locale: dto.locale,
        type: dto.type,
        version: String(dto.version),
        consent: dto.consent,
      });
      ids.push(id);
    }
    return ids;
  }

  /** The newest consent per agreement type of the caller's account. */
  async latest(p: Principal, id: string): Promise<AgreementEntity[]> {
    const account = await this.accounts.ownById(p, id);
    return this.repo
      .createQueryBuilder('g')
      .distinctOn(['g.type'])
      .where('g.account_id = :id', { id: account.id })
      .orderBy('g.type', 'ASC')
      .addOrderBy('g.seq', 'DESC')
      .getMany();
  }

  async add(p: Principal, id: string, dto: AgreementDto): Promise<string> {
    let created!: string;
    await this.accounts.mutate(p, id, async (account, m) => {
      [created] = await this.append(m, account.id, [dto]);
    });
    return created;
  }
}
