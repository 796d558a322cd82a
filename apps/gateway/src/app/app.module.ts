import { Module } from '@nestjs/common';
import { PlatformModule } from '@vault/platform';
import { GatewayEnv } from '../config/gateway.env';
import { PlainHttpModule } from '../plain-http/plain-http.module';
import { ProxyModule } from '../proxy/proxy.module';

/** The edge: health from the platform, everything else proxied by host. No business logic. */
@Module({
  imports: [
    PlatformModule.forRoot({ name: 'gateway', env: GatewayEnv, kind: 'edge' }),
    ProxyModule,
    PlainHttpModule,
  ],
})
export class AppModule {}
