import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgreementDto, AgreementResponse, CreatedIdResponse, Principal } from '@vault/contracts';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Idempotent } from '@vault/platform/idempotency';
import { toAgreementResponse } from './agreement.view';
import { AgreementsService } from './agreements.service';

@ApiTags('agreements')
@Controller('accounts/account-id/:id/agreements')
export class AgreementsController {
  constructor(private readonly agreements: AgreementsService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'The newest consent per agreement type.' })
  @ApiOkResponse({ type: [AgreementResponse] })
  async list(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<AgreementResponse[]> {
    return (await this.agreements.latest(p, id)).map(toAgreementResponse);
  }

  @Post()
  @Idempotent()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Records a consent (appended; the history is kept).' })
  @ApiOkResponse({ type: CreatedIdResponse })
  async add(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: AgreementDto): Promise<CreatedIdResponse> {
    return { id: await this.agreements.add(p, id, dto) };
  }
}
