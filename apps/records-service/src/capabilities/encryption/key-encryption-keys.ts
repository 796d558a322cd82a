/** A key wrapped by a key-encryption key: which KEK, and the sealed bytes. */
export interface WrappedKey {
  kekId: string;
  wrapped: Buffer;
}

/**
 * The KMS port: tenant key-encryption keys that wrap and unwrap vault keys. The keys
 * themselves never leave the adapter (a keyring in memory, a PKCS#11 token, a cloud KMS).
 * `aad` binds a wrapped key to what it belongs to (vault id and tenant): a wrapped key
 * copied onto another row does not open.
 */
export abstract class KeyEncryptionKeys {
  constructor(
    /** The KEK of tenants without one of their own. */
    readonly defaultKekId: string,
    private readonly tenantKekIds: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Tenants with a KEK of their own, and its id. */
  tenantKeks(): Record<string, string> {
    return Object.fromEntries(this.tenantKekIds);
  }

  /** The KEK new wraps of this tenant use (a tenant-specific one, else the default). */
  activeKekId(tenantId: string): string {
    return this.tenantKekIds.get(tenantId) ?? this.defaultKekId;
  }

  /** Every KEK id some tenant wraps with now. */
  activeKekIds(): string[] {
    return [...new Set([this.defaultKekId, ...this.tenantKekIds.values()])];
  }

  wrap(tenantId: string, plain: Buffer, aad: Buffer): Promise<WrappedKey> {
    const kekId = this.activeKekId(tenantId);
    return this.wrapWith(kekId, plain, aad).then((wrapped) => ({ kekId, wrapped }));
  }

  /** Throws KeyUnwrapError (wrong key or tampered), KeyServiceUnavailableError (retry later). */
  abstract unwrap(key: WrappedKey, aad: Buffer): Promise<Buffer>;

  protected abstract wrapWith(kekId: string, plain: Buffer, aad: Buffer): Promise<Buffer>;

  /** Proves every active KEK wraps and unwraps; the service refuses to start otherwise. */
  async selfTest(): Promise<void> {
    const probe = Buffer.from('vault key-encryption key self-test');
    for (const kekId of this.activeKekIds()) {
      const wrapped = await this.wrapWith(kekId, probe, probe);
      const back = await this.unwrap({ kekId, wrapped }, probe);
      if (!back.equals(probe)) throw new Error(`KEK ${kekId} does not give back what it wrapped`);
    }
  }

  /** Releases the adapter's sessions; nothing to release by default. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
