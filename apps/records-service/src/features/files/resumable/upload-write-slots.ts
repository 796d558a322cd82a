import type { Principal } from '@vault/contracts';

/** Which cap refused a chunk. */
export type WriteCap = 'caller' | 'tenant';

/**
 * The chunks (PATCH) this instance is receiving, counted per caller and per tenant of the
 * caller: a chunk takes one slot of each before tus sees it and frees them when its answer
 * is sent or its connection ends; beyond either cap it is refused (429) before any lock or
 * byte, so a few callers sending slowly cannot occupy what everyone else needs.
 */
export class UploadWriteSlots {
  private readonly inUse = new Map<string, number>();

  constructor(private readonly caps: Readonly<Record<WriteCap, number>>) {}

  /** The release of the caller's new slots (idempotent), or the cap that is full. */
  take(principal: Pick<Principal, 'tenantId' | 'openId'>): { release: () => void } | { full: WriteCap } {
    const keys: Record<WriteCap, string> = {
      caller: `caller ${principal.tenantId} ${principal.openId}`,
      tenant: `tenant ${principal.tenantId}`,
    };
    for (const cap of ['caller', 'tenant'] as const) {
      if ((this.inUse.get(keys[cap]) ?? 0) >= this.caps[cap]) return { full: cap };
    }
    for (const key of Object.values(keys)) this.inUse.set(key, (this.inUse.get(key) ?? 0) + 1);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        for (const key of Object.values(keys)) {
          const left = (this.inUse.get(key) ?? 1) - 1;
          if (left > 0) this.inUse.set(key, left);
          else this.inUse.delete(key);
        }
      },
    };
  }

  /** Slots in use by one caller or tenant (for tests and metrics). */
  used(cap: WriteCap, principal: Pick<Principal, 'tenantId' | 'openId'>): number {
    const key = cap === 'caller' ? `caller ${principal.tenantId} ${principal.openId}` : `tenant ${principal.tenantId}`;
    return this.inUse.get(key) ?? 0;
  }
}
