import { Injectable } from '@nestjs/common';
import {
  Principal,
  RECORD_SEARCH_DEFAULT_PAGE_SIZE,
  RecordSearchItem,
  RecordSearchPage,
  RecordSearchQueryDto,
} from '@vault/contracts';
import { offsetPage, offsetPageAnswer } from '@vault/platform/http';
import { VaultAccess } from '../../capabilities/access/access.service';
import { CatalogueService } from '../../capabilities/catalogue/catalogue.service';
import { MembershipRepository } from '../../persistence/memberships/membership.repository';
import type { RecordSubtypeEntity, RecordTypeEntity } from '../../persistence/record-types/record-type.entity';
import { RecordRepository, RecordSearchFilter, RecordSearchRow } from '../../persistence/records/record.repository';
import { toSearchItem } from './record.view';

/** The record search of a vault: the query's names resolved through the catalogue, roles applied in the query. */
@Injectable()
export class RecordSearchService {
  constructor(
    private readonly records: RecordRepository,
    private readonly memberships: MembershipRepository,
    private readonly catalogue: CatalogueService,
  ) {}

  /**
   * The records matching the query, newest change first: all of them as the contract's
   * array, or one page with its page object and `nextCursor` when `page`, `pageSize` or `cursor` is given.
   */
  async search(
    access: VaultAccess,
    principal: Principal,
    q: RecordSearchQueryDto,
  ): Promise<RecordSearchItem[] | RecordSearchPage> {
    const filter = await this.searchFilter(q);
    // a record guest (no vault role) finds only the records shared with it
    if (filter && !access.vaultRole) filter.sharedWith = principal.openId;
    const p = offsetPage(q, RECORD_SEARCH_DEFAULT_PAGE_SIZE);
    if (!p.paged) {
      return filter ? this.searchItems(await this.records.search(access.vault.id, filter), q) : [];
    }
    const [rows, total] = filter ? await this.records.searchPage(access.vault.id, filter, p.offset, p.pageSize) : [[], 0];
    return offsetPageAnswer(await this.searchItems(rows, q), total, p);
  }

  private async searchItems(rows: RecordSearchRow[], q: RecordSearchQueryDto): Promise<RecordSearchItem[]> {
    const contributors = await this.memberships.contributors(rows.map((r) => r.id));
    // the catalogue entries of the few types in the answer, looked up once each (not twice per record)
    const types = new Map<string, RecordTypeEntity>();
    const subtypes = new Map<string, RecordSubtypeEntity>();
    for (const r of rows) {
      if (!types.has(r.recordTypeId)) types.set(r.recordTypeId, await this.catalogue.type(r.recordTypeId));
      if (!subtypes.has(r.recordSubtypeId)) subtypes.set(r.recordSubtypeId, await this.catalogue.subtype(r.recordSubtypeId));
    }
    return rows.map((r) =>
      toSearchItem(
        r,
        types.get(r.recordTypeId) as RecordTypeEntity,
        subtypes.get(r.recordSubtypeId) as RecordSubtypeEntity,
        contributors.get(r.id) ?? [],
        q.locale,
      ),
    );
  }

  /**
   * The query as a repository filter, type and subtype names resolved through the
   * catalogue; undefined when no record can match (an unknown name, or an id and a
   * name that name different types).
   */
  private async searchFilter(q: RecordSearchQueryDto): Promise<RecordSearchFilter | undefined> {
    const filter: RecordSearchFilter = {
      status: q.status,
      name: q.name,
      uniqueReference: q.uniqueReference,
      subtypeOther: q.recordSubtypeOther,
    };
    if (q.recordTypeId) filter.typeIds = [q.recordTypeId];
    if (q.recordSubtypeId) filter.subtypeIds = [q.recordSubtypeId];
    if (q.recordTypeName) {
      const type = (await this.catalogue.allTypes()).find((t) => t.name === q.recordTypeName);
      if (!type) return undefined;
      filter.typeIds = intersect(filter.typeIds, [type.id]);
    }
    if (q.recordSubtypeName) {
      filter.subtypeIds = intersect(filter.subtypeIds, await this.catalogue.subtypeIdsNamed(q.recordSubtypeName));
    }
    if (filter.typeIds?.length === 0 || filter.subtypeIds?.length === 0) return undefined;
    return filter;
  }
}

/** Values in both lists (`a` undefined: no constraint yet, so `b`). */
function intersect(a: string[] | undefined, b: string[]): string[] {
  return a ? a.filter((v) => b.includes(v)) : b;
}
