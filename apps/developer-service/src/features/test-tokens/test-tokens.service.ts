import { Injectable } from '@nestjs/common';
import { TestResponseType } from '@vault/contracts';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { TokenSigner } from '../../capabilities/tokens/token-signer.service';
import { redirectWithToken, renderTokenPage, TEST_IDENTITY_USERNAME, testIdentityId } from './test-token.render';
import { applicationNotFound, noRedirectUri, notInTestMode } from './test-tokens.errors';

export type TestTokenAnswer = { redirectUrl: string } | { html: string };

/**
 * `GET .../test`: a token without credentials, only for applications in test
 * mode. It is issued to the application's dedicated test identity, never to an
 * organisation user.
 */
@Injectable()
export class TestTokensService {
  constructor(
    private readonly directory: DirectoryService,
    private readonly signer: TokenSigner,
  ) {}

  async issue(tenantId: string, clientId: string, type: TestResponseType): Promise<TestTokenAnswer> {
    const app = await this.directory.findApplication(tenantId, clientId);
    if (!app) throw applicationNotFound();
    if (!app.testMode) throw notInTestMode();
    const redirectUri = app.redirectUris[0];
    if (type === 'redirect_url' && !redirectUri) throw noRedirectUri();
    const token = await this.signer.issue({
      userId: testIdentityId(tenantId, clientId),
      username: TEST_IDENTITY_USERNAME,
      tenantId,
      clientId,
      // nobody signed in: operations that need a recent sign-in refuse it
      authTime: null,
    });
    return type === 'html'
      ? { html: renderTokenPage(tenantId, clientId, token) }
      : { redirectUrl: redirectWithToken(redirectUri, token) };
  }
}
