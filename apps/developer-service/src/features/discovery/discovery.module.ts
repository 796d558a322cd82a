import { Module } from '@nestjs/common';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { DiscoveryController } from './discovery.controller';
import { DiscoveryService } from './discovery.service';

/** `GET .../.well-known/oauth-authorization-server`: RFC 8414 metadata per client application. */
@Module({
  imports: [DirectoryModule],
  controllers: [DiscoveryController],
  providers: [DiscoveryService],
})
export class DiscoveryModule {}
