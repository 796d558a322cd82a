import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OAuthServerMetadataDto } from '@vault/contracts';
import { Public } from '@vault/platform/auth';
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { DiscoveryService } from './discovery.service';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
export class DiscoveryController {
  constructor(private readonly discovery: DiscoveryService) {}

  @Get('.well-known/oauth-authorization-server')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'OAuth 2.0 authorization server metadata (RFC 8414) of the client application.',
    description:
      "issuer (the `iss` of the access tokens), the application's token endpoint, the JWKS, the grant types " +
      '(password, refresh_token) and client authentication methods (client_secret_basic, client_secret_post).',
  })
  @ApiOkResponse({ type: OAuthServerMetadataDto })
  @ApiNotFoundResponse({ description: 'Code `not_found`: unknown tenant or client, or a client of another tenant.' })
  metadata(@Param('tenantId') tenantId: string, @Param('clientId') clientId: string): Promise<OAuthServerMetadataDto> {
    return this.discovery.metadata(tenantId, clientId);
  }
}
