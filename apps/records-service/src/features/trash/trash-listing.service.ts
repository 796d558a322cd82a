import { Injectable } from '@nestjs/common';
import { DEFAULT_PAGE_SIZE, Principal, TrashItemView, TrashPage, TrashQueryDto } from '@vault/contracts';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { TrashRepository, TrashRow } from '../../persistence/trash/trash.repository';
import { decodeTrashCursor, encodeTrashCursor } from './trash-cursor';

const toItemView = (r: TrashRow): TrashItemView => ({
  id: r.id,
  kind: r.kind,
  name: r.name,
  recordId: r.recordId,
  vaultId: r.vaultId,
  deletedAt: new Date(r.deletedAt).toISOString(),
  deletedBy: r.deletedBy,
  purgeAt: new Date(r.purgeAt).toISOString(),
  bytes: Number(r.bytes),
});

/** The trash listings: a vault's trashed records and files, and the caller's trashed vaults. */
@Injectable()
export class TrashListingService {
  constructor(private readonly trash: TrashRepository) {}

  vaultTrash(access: VaultAccess, q: TrashQueryDto): Promise<TrashPage> {
    return this.page(q, (after, limit) => this.trash.vaultTrash(access.vault.id, after, limit));
  }

  ownedTrash(principal: Principal, q: TrashQueryDto): Promise<TrashPage> {
    return this.page(q, (after, limit) => this.trash.ownedVaultTrash(principal.tenantId, principal.openId, after, limit));
  }

  /** One page, newest deletion first, with the cursor of the next one (null on the last). */
  private async page(
    q: TrashQueryDto,
    read: (after: ReturnType<typeof decodeTrashCursor>, limit: number) => Promise<TrashRow[]>,
  ): Promise<TrashPage> {
    const size = q.pageSize ?? DEFAULT_PAGE_SIZE;
    const rows = await read(decodeTrashCursor(q.cursor), size + 1);
    const more = rows.length > size;
    const data = rows.slice(0, size);
    return { data: data.map(toItemView), nextCursor: more ? encodeTrashCursor(data[data.length - 1]) : null };
  }
}
