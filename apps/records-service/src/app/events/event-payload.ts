import type { Principal, VaultEventBase } from '@vault/contracts';

/** The common part of an event: tenant, actor and vault, stamped now. */
export function eventBase(principal: Principal, vault: { id: string; name: string }): VaultEventBase {
  return {
    tenantId: principal.tenantId,
    actor: { openId: principal.openId, username: principal.username ?? principal.openId },
    vault: { id: vault.id, name: vault.name },
    occurredAt: new Date().toISOString(),
  };
}
