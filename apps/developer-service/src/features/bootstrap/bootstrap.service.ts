import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { serializeOrigin } from '@vault/contracts';
import { EnvValidationError } from '@vault/platform/config';
import { readFile } from 'node:fs/promises';
import { EntityManager } from 'typeorm';
import { PasswordHasher } from '../../capabilities/directory/password-hasher';
import { RefreshTokensService } from '../../capabilities/refresh-tokens/refresh-tokens.service';
import { DeveloperEnv } from '../../config/developer.env';
import { ApplicationFields, ApplicationRepository } from '../../persistence/tenants/application.repository';
import { OrganisationUserFields, OrganisationUserRepository } from '../../persistence/tenants/organisation-user.repository';
import { TenantRepository } from '../../persistence/tenants/tenant.repository';
import { BootstrapApplication, BootstrapFile, BootstrapUser } from './bootstrap-file.dto';
import { BootstrapFileError, parseBootstrapFile } from './bootstrap-file';
import { DEMO_CREDENTIALS, demoBootstrap } from './demo-tenant';

export interface BootstrapSummary {
  tenants: number;
  created: number;
  updated: number;
  unchanged: number;
}

type Outcome = 'created' | 'updated' | 'unchanged';

/**
 * Applies the tenants, applications and users of VAULT_BOOTSTRAP_FILE at start,
 * idempotently: entries are inserted or updated, never duplicated; a secret or
 * password is rehashed only when the stored hash no longer matches the file.
 * Entries missing from the file are left in place.
 */
@Injectable()
export class BootstrapService implements OnModuleInit {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly env: DeveloperEnv,
    private readonly hasher: PasswordHasher,
    private readonly tenants: TenantRepository,
    private readonly applications: ApplicationRepository,
    private readonly users: OrganisationUserRepository,
    private readonly refreshTokens: RefreshTokensService,
  ) {}

  async onModuleInit(): Promise<void> {
    const path = this.env.VAULT_BOOTSTRAP_FILE;
    if (path) {
      const summary = await this.apply(await this.load(path));
      this.logger.log(
        `applied ${path}: ${summary.tenants} tenant(s); ${summary.created} created, ` +
          `${summary.updated} updated, ${summary.unchanged} unchanged`,
      );
    } else if (this.env.NODE_ENV !== 'production') {
      await this.apply(demoBootstrap());
      const d = DEMO_CREDENTIALS;
      this.logger.log(
        `no VAULT_BOOTSTRAP_FILE: demo tenant "${d.tenantId}", client "${d.clientId}" / secret ` +
          `"${d.clientSecret}" (test mode), user "${d.username}" / password "${d.password}"`,
      );
    } else {
      this.logger.warn('no VAULT_BOOTSTRAP_FILE in production: serving the tenants already in the database');
    }
  }

  /** Reads and validates the file; any problem stops the boot naming the variable. */
  async load(path: string): Promise<BootstrapFile> {
    const fail = (problems: string[]) => new EnvValidationError(problems.map((p) => `VAULT_BOOTSTRAP_FILE (${path}): ${p}`));
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw fail([`cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`]);
    }
    try {
      return parseBootstrapFile(text);
    } catch (e) {
      if (e instanceof BootstrapFileError) throw fail(e.problems);
      throw e;
    }
  }

  /** Upserts every entry of the file in one transaction, serialised across replicas. */
  apply(file: BootstrapFile): Promise<BootstrapSummary> {
    return this.tenants.underBootstrapLock(async (m) => {
      const outcomes: Outcome[] = [];
      for (const t of file.tenants) {
        outcomes.push(await this.upsertTenant(m, t.id, t.name));
        for (const a of t.applications ?? []) outcomes.push(await this.upsertApplication(m, t.id, a));
        for (const u of t.users ?? []) outcomes.push(await this.upsertUser(m, t.id, u));
      }
      return {
        tenants: file.tenants.length,
        created: outcomes.filter((o) => o === 'created').length,
        updated: outcomes.filter((o) => o === 'updated').length,
        unchanged: outcomes.filter((o) => o === 'unchanged').length,
      };
    });
  }

  private async upsertTenant(m: EntityManager, id: string, name: string): Promise<Outcome> {
    const existing = await this.tenants.find(m, id);
    if (!existing) {
      await this.tenants.insert(m, { id, name });
      return 'created';
    }
    if (existing.name === name) return 'unchanged';
    await this.tenants.rename(m, id, name);
    return 'updated';
  }

  private async upsertApplication(m: EntityManager, tenantId: string, a: BootstrapApplication): Promise<Outcome> {
    const fields = {
      tenantId,
      testMode: a.testMode ?? false,
      redirectUris: a.redirectUris ?? [],
      // Stored serialized (lower case, no default port), once each, in a stable order.
      allowedOrigins: [...new Set((a.allowedOrigins ?? []).map((o) => serializeOrigin(o) as string))].sort(),
    };
    const existing = await this.applications.find(a.clientId, m);
    if (!existing) {
      const secretHash = await this.hasher.hash(a.clientSecret);
      await this.applications.insert(m, {
        clientId: a.clientId,
        secretHash,
        ...fields,
      });
      return 'created';
    }
    const changes: Partial<ApplicationFields> = {};
    if (existing.tenantId !== fields.tenantId) changes.tenantId = fields.tenantId;
    if (existing.testMode !== fields.testMode) changes.testMode = fields.testMode;
    if (existing.redirectUris.join('\n') !== fields.redirectUris.join('\n')) {
      changes.redirectUris = fields.redirectUris;
    }
    if (existing.allowedOrigins.join('\n') !== fields.allowedOrigins.join('\n')) {
      changes.allowedOrigins = fields.allowedOrigins;
    }
    if (await this.hasher.isStale(existing.secretHash, a.clientSecret)) {
      changes.secretHash = await this.hasher.hash(a.clientSecret);
    }
    if (Object.keys(changes).length === 0) return 'unchanged';
    await this.applications.update(m, a.clientId, changes);
    return 'updated';
  }

  private async upsertUser(m: EntityManager, tenantId: string, u: BootstrapUser): Promise<Outcome> {
    const existing = await this.users.findByUsername(tenantId, u.username, m);
    if (!existing) {
      const passwordHash = await this.hasher.hash(u.password);
      await this.users.insert(m, {
        tenantId,
        username: u.username,
        passwordHash,
        roles: u.roles ?? [],
      });
      return 'created';
    }
    const changes: Partial<OrganisationUserFields> = {};
    if (existing.username !== u.username) changes.username = u.username;
    if ([...existing.roles].sort().join() !== [...(u.roles ?? [])].sort().join()) changes.roles = u.roles ?? [];
    let passwordChanged = false;
    if (await this.hasher.isStale(existing.passwordHash, u.password)) {
      // stale: a new password, or the same one under new hashing parameters
      passwordChanged = !(await this.hasher.verify(existing.passwordHash, u.password));
      changes.passwordHash = await this.hasher.hash(u.password);
    }
    if (Object.keys(changes).length === 0) return 'unchanged';
    await this.users.update(m, existing.id, changes);
    // A new password ends every refresh token of the user (the access tokens run out by themselves).
    if (passwordChanged) await this.refreshTokens.passwordChanged(m, tenantId, existing.id);
    return 'updated';
  }
}
