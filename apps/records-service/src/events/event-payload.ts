import type { Principal, VaultEventBase } from '@vault/contracts';

/** The name shown for the caller (lastModifiedBy, uploader): its username, else its openId. */
export const actorName = (p: Principal) => p.username ?? p.openId;

/** The common part of an event: tenant, actor and vault, stamped now. */
export function eventBase(principal: Principal, vault: { id: string; name: string }): VaultEventBase {
  return {
    tenantId: principal.tenantId,
    actor: { openId: principal.openId, username: actorName(principal) },
    vault: { id: vault.id, name: vault.name },
    occurredAt: new Date().toISOString(),
  };
}
