import { Injectable } from '@nestjs/common';
import { ActivityLogPageDto, ActivityLogQueryDto, LOG_DEFAULT_PAGE_SIZE, pageInfo } from '@vault/contracts';
import { ActivityLogFilter, ActivityLogRepository, LogSlice } from '../../persistence/activity-log/activity-log.repository';
import { decodeCursor, encodeCursor } from './activity-log.cursor';
import { pageAndCursor } from './activity-log.errors';
import { renderEntry } from './activity-log.renderer';

/**
 * Reads a vault's activity log, newest first, rendered in the requested locale. A page
 * by number reads the newer half of the log from its newest entry and the older half
 * from its oldest; a page by cursor continues after the last entry of the previous one.
 * totalItems comes from counters the writer keeps (a sender filter counts on its index).
 */
@Injectable()
export class ActivityLogService {
  constructor(private readonly entries: ActivityLogRepository) {}

  async page(vault: { id: string; tenantId: string }, q: ActivityLogQueryDto): Promise<ActivityLogPageDto> {
    if (q.cursor !== undefined && q.page !== undefined) {
      throw pageAndCursor();
    }
    const pageSize = q.pageSize ?? LOG_DEFAULT_PAGE_SIZE;
    const filter: ActivityLogFilter = { entity: q.entity, eventType: q.eventType, actorOpenId: q.senderOpenId };
    const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, filter);
    const page = cursor?.page ?? q.page ?? 1;
    const total = await this.entries.count(vault, filter);
    const slice: LogSlice = cursor
      ? await this.entries.after(vault, filter, cursor.key, pageSize)
      : await this.entries.slice(vault, filter, (page - 1) * pageSize, pageSize, total);
    const last = slice.keys.at(-1);
    const more = last !== undefined && slice.entries.length === pageSize && page * pageSize < total;
    const locale = q.locale ?? 'en-US';
    const nextCursor = more ? encodeCursor({ key: last, page: page + 1 }, filter) : null;
    // `nextCursor` at the top like every list; in `page` too, where it was first answered.
    return {
      data: slice.entries.map((r) => renderEntry(r, locale)),
      page: { ...pageInfo(total, page, pageSize), nextCursor },
      nextCursor,
    };
  }
}
