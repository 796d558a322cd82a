import { Injectable } from '@nestjs/common';
import { DEVELOPER_ERROR_CODES, TestResponseType } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { TokenSigner } from '../../capabilities/tokens/token-signer.service';
import {
  redirectWithToken,
  renderTokenPage,
  TEST_IDENTITY_USERNAME,
  testIdentityId,
} from './test-token.render';

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

  async issue(
    tenantId: string,
    clientId: string,
    type: TestResponseType,
  ): Promise<TestTokenAnswer> {
    const app = await this.directory.findApplication(tenantId, clientId);
    if (!app)
      throw ProblemException.notFound('No such application for this tenant.');
    if (!app.testMode) {
      throw ProblemException.forbidden(
        'Test tokens are only issued to applications in test mode.',
      );
    }
    const redirectUri = app.redirectUris[0];
    if (type === 'redirect_url' && !redirectUri) {
      throw ProblemException.conflict(
        DEVELOPER_ERROR_CODES.noRedirectUri,
        'The application has no redirect URI.',
      );
    }
    const token = await this.signer.issue({
      userId: testIdentityId(tenantId, clientId),
      username: TEST_IDENTITY_USERNAME,
      tenantId,
      clientId,
    });
    return type === 'html'
      ? { html: renderTokenPage(tenantId, clientId, token) }
      : { redirectUrl: redirectWithToken(redirectUri, token) };
  }
}
