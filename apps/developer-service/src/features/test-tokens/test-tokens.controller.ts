import { Controller, Get, Header, Param, Query, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { TestRedirectResponseDto, TestTokenQueryDto } from '@vault/contracts';
import { Public } from '@vault/platform/auth';
import type { Response } from 'express';
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { TestTokensService } from './test-tokens.service';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
export class TestTokensController {
  constructor(private readonly tests: TestTokensService) {}

  @Get('test')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: "Issue a token for testing to the application's dedicated test identity (test-mode applications only).",
  })
  @ApiProduces('application/json', 'text/html')
  @ApiOkResponse({
    type: TestRedirectResponseDto,
    description: '`redirect_url` (default): `{redirectUrl}`; `html`: a page showing the token.',
  })
  @ApiForbiddenResponse({
    description: '`forbidden`: the application is not in test mode; `account_deleted`: its test identity deleted its account.',
  })
  @ApiNotFoundResponse({ description: 'No such tenant or application.' })
  async test(
    @Param('tenantId') tenantId: string,
    @Param('clientId') clientId: string,
    @Query() query: TestTokenQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TestRedirectResponseDto | string> {
    const answer = await this.tests.issue(tenantId, clientId, query.responseType ?? 'redirect_url');
    if ('redirectUrl' in answer) return answer;
    res.type('html').setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    return answer.html;
  }
}
