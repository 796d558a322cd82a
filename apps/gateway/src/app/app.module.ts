import { Module } from '@nestjs/common';
import { PlatformModule } from '@vault/platform/bootstrap';
import { GatewayEnv } from '../config/gateway.env';
import { PlainHttpModule } from '../features/plain-http/plain-http.module';
import { ProxyModule } from '../capabilities/proxy/proxy.module';

/** The edge: health from the platform, everything else proxied by host. No business logic. */
@Module({
  imports: [PlatformModule.forRoot({ name: 'gateway', env: GatewayEnv, kind: 'edge' }), ProxyModule, PlainHttpModule],
})
export class AppModule {}
