import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JWKS_PATH, type JwksDocument } from '@vault/contracts';
import { Public } from '@vault/platform/auth';
import { SigningKeysService } from '../../capabilities/signing-keys/signing-keys.service';

@ApiTags('keys')
@Public()
@Controller()
export class JwksController {
  constructor(private readonly keys: SigningKeysService) {}

  @Get(JWKS_PATH)
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: 'Public keys that verify the access tokens (JWKS, RFC 7517).',
  })
  @ApiOkResponse({ description: 'The JSON Web Key Set.' })
  jwks(): JwksDocument {
    return this.keys.publicKeys();
  }
}
