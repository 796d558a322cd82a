import { randomBytes } from 'node:crypto';
import * as pkcs11js from 'pkcs11js';
import { KeyConfigurationError } from './key-configuration.error';
import { KeyServiceUnavailableError, KeyUnwrapError } from './encryption.errors';
import { KeyEncryptionKeys, WrappedKey } from './key-encryption-keys';

export interface Pkcs11Options {
  /** Path of the PKCS#11 module (.so). */
  module: string;
  tokenLabel: string;
  pin: string;
}

const IV = 12;
const CKR_CRYPTOKI_ALREADY_INITIALIZED = 0x191;
/** Logins are per application: a second session of this process is already logged in. */
const CKR_USER_ALREADY_LOGGED_IN = 0x100;
const TAG = 16;

/** Cryptoki results that mean "the token is not reachable now" (retry later), not "wrong key". */
const UNAVAILABLE = new Set([
  0x30, // CKR_DEVICE_ERROR
  0x31, // CKR_DEVICE_MEMORY
  0x32, // CKR_DEVICE_REMOVED
  0xb0, // CKR_SESSION_CLOSED
  0xb3, // CKR_SESSION_HANDLE_INVALID
  0xe0, // CKR_TOKEN_NOT_PRESENT
  0x101, // CKR_USER_NOT_LOGGED_IN
  0x190, // CKR_CRYPTOKI_NOT_INITIALIZED
]);

/**
 * Key-encryption keys that never leave a PKCS#11 token (an HSM, SoftHSM2, a cloud KMS's
 * PKCS#11 module): AES-256 secret keys found by label, used with CKM_AES_GCM. Wrapped
 * form: IV (12) ‖ ciphertext ‖ tag (16). A lost session is opened again on the next call.
 */
export class Pkcs11Keys extends KeyEncryptionKeys {
  private session: pkcs11js.Handle | null = null;
  private readonly handles = new Map<string, pkcs11js.Handle>();

  private constructor(
    private readonly lib: pkcs11js.PKCS11,
    private readonly options: Pkcs11Options,
    activeKekId: string,
    tenantKekIds: ReadonlyMap<string, string>,
    private readonly finalizeOnClose: boolean,
  ) {
    super(activeKekId, tenantKekIds);
  }

  static open(options: Pkcs11Options, activeKekId: string, tenantKekIds = new Map<string, string>()): Pkcs11Keys {
    const lib = new pkcs11js.PKCS11();
    let initialized = true;
    try {
      lib.load(options.module);
      lib.C_Initialize();
    } catch (err) {
      initialized = false;
      // another user of the module in this process initialised it: share it, leave it to them to finalise
      if ((err as { code?: number }).code !== CKR_CRYPTOKI_ALREADY_INITIALIZED) {
        throw new KeyConfigurationError(`PKCS11_MODULE ${options.module} cannot be loaded: ${(err as Error).message}`);
      }
    }
    const keys = new Pkcs11Keys(lib, options, activeKekId, tenantKekIds, initialized);
    try {
      keys.openSession();
    } catch (err) {
      void keys.close();
      throw err;
    }
    return keys;
  }

  /** Creates a non-extractable AES-256 key of this label on the token (operations, tests). */
  generateKey(label: string): void {
    this.call(() =>
      this.lib.C_GenerateKey(this.openSession(), { mechanism: pkcs11js.CKM_AES_KEY_GEN }, [
        { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
        { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
        { type: pkcs11js.CKA_VALUE_LEN, value: 32 },
        { type: pkcs11js.CKA_LABEL, value: label },
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
        { type: pkcs11js.CKA_SENSITIVE, value: true },
        { type: pkcs11js.CKA_EXTRACTABLE, value: false },
        { type: pkcs11js.CKA_ENCRYPT, value: true },
        { type: pkcs11js.CKA_DECRYPT, value: true },
      ]),
    );
  }

  protected async wrapWith(kekId: string, plain: Buffer, aad: Buffer): Promise<Buffer> {
    const iv = randomBytes(IV);
    const sealed = this.call(() => {
      const session = this.openSession();
      this.lib.C_EncryptInit(session, this.gcm(iv, aad), this.keyHandle(kekId));
      return this.lib.C_Encrypt(session, plain, Buffer.alloc(plain.length + TAG));
    });
    return Buffer.concat([iv, sealed]);
  }

  async unwrap({ kekId, wrapped }: WrappedKey, aad: Buffer): Promise<Buffer> {
    if (wrapped.length < IV + TAG) throw new KeyUnwrapError('wrapped key too short');
    return this.call(() => {
      const session = this.openSession();
      this.lib.C_DecryptInit(session, this.gcm(wrapped.subarray(0, IV), aad), this.keyHandle(kekId));
      return this.lib.C_Decrypt(session, wrapped.subarray(IV), Buffer.alloc(wrapped.length));
    });
  }

  override async close(): Promise<void> {
    try {
      if (this.session) this.lib.C_CloseSession(this.session);
      if (this.finalizeOnClose) this.lib.C_Finalize();
    } catch {
      // closing a broken token is best effort
    }
    this.session = null;
  }

  private gcm(iv: Buffer, aad: Buffer): pkcs11js.Mechanism {
    const parameter: pkcs11js.AesGCM = { type: pkcs11js.CK_PARAMS_AES_GCM, iv, aad, ivBits: IV * 8, tagBits: TAG * 8 };
    return { mechanism: pkcs11js.CKM_AES_GCM, parameter };
  }

  private openSession(): pkcs11js.Handle {
    if (this.session) return this.session;
    const slot = this.lib.C_GetSlotList(true).find((s) => this.lib.C_GetTokenInfo(s).label.trim() === this.options.tokenLabel);
    if (!slot) throw new KeyServiceUnavailableError(`no PKCS#11 token labelled ${this.options.tokenLabel}`);
    const session = this.lib.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      this.lib.C_Login(session, pkcs11js.CKU_USER, this.options.pin);
    } catch (err) {
      if ((err as { code?: number }).code === CKR_USER_ALREADY_LOGGED_IN) return this.adopt(session);
      this.lib.C_CloseSession(session);
      throw new KeyConfigurationError(`PKCS11_PIN is refused by token ${this.options.tokenLabel}: ${(err as Error).message}`);
    }
    return this.adopt(session);
  }

  private adopt(session: pkcs11js.Handle): pkcs11js.Handle {
    this.session = session;
    this.handles.clear();
    return session;
  }

  private keyHandle(label: string): pkcs11js.Handle {
    const known = this.handles.get(label);
    if (known) return known;
    const session = this.openSession();
    this.lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
      { type: pkcs11js.CKA_LABEL, value: label },
    ]);
    const found = this.lib.C_FindObjects(session, 2);
    this.lib.C_FindObjectsFinal(session);
    if (found.length !== 1) throw new KeyUnwrapError(`the token holds ${found.length} keys labelled ${label}`);
    this.handles.set(label, found[0]);
    return found[0];
  }

  /** Runs token calls, sorting failures into "retry later" and "this key does not open". */
  private call<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof KeyUnwrapError || err instanceof KeyConfigurationError) throw err;
      if (err instanceof KeyServiceUnavailableError || UNAVAILABLE.has((err as { code?: number }).code ?? -1)) {
        this.session = null;
        throw new KeyServiceUnavailableError((err as Error).message, { cause: err });
      }
      throw new KeyUnwrapError(`the token refuses the key: ${(err as Error).message}`);
    }
  }
}
