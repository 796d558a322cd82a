import type { TrashItemKind } from '@vault/contracts';
import { roleTooWeak } from '../../capabilities/access/access.errors';
import { grants, ParsedRule } from '../../capabilities/access/roles';
import { notInTrash } from '../../capabilities/retention/retention.errors';
import type { TrashTarget } from '../../persistence/trash/trash.repository';

/** The role a restore or purge needs: the one its delete needed (vault owner; record owner; file editor). */
const RULES: Record<TrashItemKind, ParsedRule> = {
  vault: { domain: 'vault', level: 'owner' },
  record: { domain: 'record', level: 'owner' },
  file: { domain: 'record', level: 'editor' },
};

/**
 * The trashed item the caller may restore or purge: 404 when it is not in the trash or the
 * caller holds no role on it (a stranger learns nothing), 403 when its role is too weak.
 */
export function authorizeTrashItem(t: TrashTarget | null): TrashTarget {
  if (!t || t.deletedAt === null) throw notInTrash();
  const recordRole = t.kind === 'vault' ? undefined : (t.recordRole ?? undefined);
  const vaultRole = t.vaultRole ?? undefined;
  if (!vaultRole && !recordRole) throw notInTrash();
  if (!grants(RULES[t.kind], vaultRole, recordRole)) throw roleTooWeak();
  return t;
}
