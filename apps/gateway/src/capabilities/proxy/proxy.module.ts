import { Module } from '@nestjs/common';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { ProxyService } from './proxy.service';

@Module({ providers: [ProxyService, RateLimitService], exports: [ProxyService] })
export class ProxyModule {}
