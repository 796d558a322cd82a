import { Controller, Get, Headers, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiGoneResponse,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Principal } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import type { Request, Response } from 'express';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { parseLimit, queryText } from './change-feed.cursor';
import { ChangeFeedService } from './change-feed.service';
import { ChangeFeedStream } from './change-feed.stream';

const wantsStream = (accept: string | undefined) => /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');

@ApiTags('change feed')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/events')
export class ChangeFeedController {
  constructor(
    private readonly feed: ChangeFeedService,
    private readonly stream: ChangeFeedStream,
  ) {}

  @Get()
  @Access('vault:guest')
  @ApiOperation({
    summary: "The vault's change feed: its events as CloudEvents in stream order, paged or streamed live.",
    description:
      'Without a cursor the feed starts at the oldest retained event; `nextCursor` continues after the last event ' +
      'of the page. With `Accept: text/event-stream` the events stream as Server-Sent Events whose `id` is the ' +
      'cursor; `Last-Event-ID` (or `cursor`) resumes right after that event. Vault members see every event, a ' +
      'record guest the events of its records (roles as they are when each page or poll is read). ' +
      'A cursor past retention answers 410 `cursor_expired`: resync, then read without a cursor (docs/change-feed.md).',
  })
  @ApiParam({ name: 'vaultId', format: 'uuid' })
  @ApiQuery({ name: 'cursor', required: false, description: 'A nextCursor, or an SSE event id, of this feed.' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'With text/event-stream: the id of the last event seen.' })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    description: '`{ data: CloudEvent[], nextCursor, hasMore }`, or a text/event-stream of CloudEvents.',
    schema: {
      type: 'object',
      required: ['data', 'nextCursor', 'hasMore'],
      properties: {
        data: { type: 'array', items: { type: 'object', description: 'A CloudEvents 1.0 event (docs/change-feed.md).' } },
        nextCursor: { type: 'string' },
        hasMore: { type: 'boolean' },
      },
    },
  })
  @ApiBadRequestResponse({ description: 'A malformed cursor, Last-Event-ID or limit.' })
  @ApiNotFoundResponse({ description: 'No such vault visible to the caller.' })
  @ApiGoneResponse({ description: '`cursor_expired`: events after the cursor were pruned; resync.' })
  async events(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('vaultId') vaultId: string,
    @Query('cursor') cursor: unknown,
    @Query('limit') limit: unknown,
    @Headers('accept') accept: string | undefined,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const fromQuery = queryText(cursor, 'cursor');
    if (wantsStream(accept)) {
      const resume = lastEventId !== undefined && lastEventId !== '' ? lastEventId : undefined;
      await this.stream.serve(req, res, principal, vaultId, resume ?? fromQuery, resume ? 'Last-Event-ID' : 'cursor');
      return;
    }
    res.json(await this.feed.page(access, principal, fromQuery, parseLimit(queryText(limit, 'limit'))));
  }
}
