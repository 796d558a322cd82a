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
  @ApiOkResponse({
    description: 'The JSON Web Key Set (RFC 7517): the public ES256 keys tokens are signed with.',
    schema: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'kid'],
            properties: {
              kty: { type: 'string', enum: ['EC'] },
              crv: { type: 'string' },
              x: { type: 'string' },
              y: { type: 'string' },
              kid: { type: 'string' },
              alg: { type: 'string' },
              use: { type: 'string' },
            },
          },
        },
      },
    },
  })
  jwks(): JwksDocument {
    return this.keys.publicKeys();
  }
}
