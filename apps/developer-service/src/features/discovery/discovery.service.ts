import { Injectable } from '@nestjs/common';
import {
  ACCESS_TOKEN_SCOPE,
  JWKS_PATH,
  OAUTH_CLIENT_AUTH_METHODS,
  OAUTH_GRANT_TYPES,
  OAuthServerMetadataDto,
} from '@vault/contracts';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { DeveloperEnv, tokenIdentity } from '../../config/developer.env';
import { unknownApplication } from './discovery.errors';

/** Where the module's documentation is served (the OpenAPI page), below the issuer. */
const DOCS_PATH = 'docs';

/**
 * RFC 8414 metadata of one client application. The issuer is the platform's one issuer
 * (the `iss` of every access token, TOKEN_ISSUER or AUTH_ISSUER), which is also the
 * module's public base address; each application has its own token endpoint below it.
 */
@Injectable()
export class DiscoveryService {
  constructor(
    private readonly env: DeveloperEnv,
    private readonly directory: DirectoryService,
  ) {}

  async metadata(tenantId: string, clientId: string): Promise<OAuthServerMetadataDto> {
    const app = await this.directory.findApplication(tenantId, clientId);
    if (!app) throw unknownApplication();
    const { issuer } = tokenIdentity(this.env);
    const base = issuer.replace(/\/+$/, '');
    const application = `${base}/tenant/tenant-id/${encodeURIComponent(tenantId)}/applications/client-id/${encodeURIComponent(clientId)}`;
    return {
      issuer,
      token_endpoint: `${application}/oauth/token`,
      jwks_uri: `${base}/${JWKS_PATH}`,
      grant_types_supported: [...OAUTH_GRANT_TYPES],
      token_endpoint_auth_methods_supported: [...OAUTH_CLIENT_AUTH_METHODS],
      // no authorization endpoint: no response type
      response_types_supported: [],
      scopes_supported: [ACCESS_TOKEN_SCOPE],
      service_documentation: `${base}/${DOCS_PATH}`,
    };
  }
}
