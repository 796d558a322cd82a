import { Injectable, Logger } from '@nestjs/common';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { PasswordHasher } from '../../capabilities/directory/password-hasher';
import { ApplicationEntity } from '../../persistence/tenants/application.entity';
import { OrganisationUserEntity } from '../../persistence/tenants/organisation-user.entity';
import { DeviceCookies } from './device-cookies';
import { LoginThrottle, loginKey } from './login-throttle.service';

/** Credentials of a password sign-in: the client's secret and the user's. */
export interface SignInCredentials {
  clientSecret: string;
  username: string;
  password: string;
}

/** A checked sign-in: the application and the user, or which part failed. */
export type SignInCheck =
  | { ok: true; app: ApplicationEntity; user: OrganisationUserEntity }
  | { ok: false; failed: 'client' | 'user' };

/**
 * Checks client secret + organisation user credentials under the sign-in throttle (429
 * ProblemException with Retry-After when a limit refuses the attempt). Whatever fails, the
 * work is the same: two argon2 verifications (against a dummy hash for whatever is unknown).
 * A client with a device cookie of the login is throttled as a known device; a success
 * gives the client a new one (DeviceCookies, when the sign-in runs under them).
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly directory: DirectoryService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly devices: DeviceCookies,
  ) {}

  async check(tenantId: string, clientId: string, credentials: SignInCredentials, ip: string): Promise<SignInCheck> {
    const userKey = loginKey(tenantId, clientId, credentials.username);
    const attempt = { userKey, ip, device: await this.devices.presented(userKey) };
    const trust = await this.throttle.begin(attempt);
    const [app, user] = await Promise.all([
      this.directory.findApplication(tenantId, clientId),
      this.directory.findUser(tenantId, credentials.username),
    ]);
    const secretOk = await this.hasher.verify(app?.secretHash, credentials.clientSecret);
    const passwordOk = await this.hasher.verify(user?.passwordHash, credentials.password);
    if (!app || !user || !secretOk || !passwordOk) {
      // The reason stays in the service log.
      const reason = !app
        ? 'unknown tenant or client'
        : !secretOk
          ? 'wrong client secret'
          : !user
            ? 'unknown user'
            : 'wrong password';
      this.logger.debug(`sign-in refused for ${tenantId}/${clientId} from ${ip}: ${reason}`);
      return { ok: false, failed: !app || !secretOk ? 'client' : 'user' };
    }
    await this.throttle.succeeded(attempt, trust);
    await this.devices.issue(userKey);
    return { ok: true, app, user };
  }
}
