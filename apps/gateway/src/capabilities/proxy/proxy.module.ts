import { Module } from '@nestjs/common';
import { CorsService } from '../cors/cors.service';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { ProxyService } from './proxy.service';

@Module({ providers: [ProxyService, RateLimitService, CorsService], exports: [ProxyService] })
export class ProxyModule {}
