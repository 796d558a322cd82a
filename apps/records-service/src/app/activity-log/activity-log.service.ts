import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  ActivityLogPageDto,
  ActivityLogQueryDto,
  LOG_DEFAULT_PAGE_SIZE,
} from '@vault/contracts';
import { FindOptionsWhere, Repository } from 'typeorm';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { pageInfo } from './activity-log.paging';
import { renderEntry } from './activity-log.renderer';

/** Reads a vault's activity log, newest first, rendered in the requested locale. */
@Injectable()
export class ActivityLogService {
  constructor(
    @InjectRepository(ActivityLogEntryEntity)
    private readonly entries: Repository<ActivityLogEntryEntity>,
  ) {}

  async page(vault: { id: string; tenantId: string }, q: ActivityLogQueryDto): Promise<ActivityLogPageDto> {
    const page = q.page ?? 1;
    const pageSize = q.pageSize ?? LOG_DEFAULT_PAGE_SIZE;
    const where: FindOptionsWhere<ActivityLogEntryEntity> = { vaultId: vault.id, tenantId: vault.tenantId };
    if (q.entity) where.entity = q.entity;
    if (q.eventType) where.eventType = q.eventType;
    if (q.senderOpenId) where.actorOpenId = q.senderOpenId;
    const [rows, total] = await this.entries.findAndCount({
      where,
      order: { occurredAt: 'DESC', loggedAt: 'DESC', eventId: 'DESC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    const locale = q.locale ?? 'en-US';
    return { data: rows.map((r) => renderEntry(r, locale)), page: pageInfo(total, page, pageSize) };
  }
}
