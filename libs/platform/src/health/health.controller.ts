import { Controller, Get, Inject, Optional } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthIndicatorFunction,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Public } from '../auth/access.decorators';
import { NatsConnectionState } from '../events/nats/nats-connection-state';
import { RevocationService } from '../auth/revocation.service';
import { ShutdownState } from './shutdown-state';
import { HEALTH_OPTIONS, HealthOptions } from './health.options';

/** `/health/live` answers while the process runs; `/health/ready` while it can serve. */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly shutdown: ShutdownState,
    @Inject(HEALTH_OPTIONS) private readonly options: HealthOptions,
    @Optional() private readonly db?: TypeOrmHealthIndicator,
    @Optional() private readonly nats?: NatsConnectionState,
    @Optional() private readonly revocations?: RevocationService,
  ) {}

  @Public()
  @Get('live')
  live() {
    return { status: 'ok' };
  }

  @Public()
  @Get('ready')
  @HealthCheck()
  ready() {
    const checks: HealthIndicatorFunction[] = [
      () => {
        const s = this.indicators.check('lifecycle');
        return this.shutdown.draining ? s.down('draining') : s.up();
      },
    ];
    const { db, nats } = this;
    if (this.options.database && db) {
      checks.push(() => db.pingCheck('database', { timeout: 1500 }));
    }
    if (this.options.nats && nats) {
      checks.push(() => {
        const s = this.indicators.check('nats');
        return nats.connected ? s.up() : s.down('disconnected');
      });
    }
    if (this.revocations) {
      const revocations = this.revocations;
      checks.push(() => {
        const s = this.indicators.check('revocations');
        return revocations.isLive() ? s.up() : s.down('watch not running or NATS down');
      });
    }
    return this.health.check(checks);
  }
}
