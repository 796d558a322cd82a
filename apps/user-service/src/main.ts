import { runService } from '@vault/platform';
import { AppModule } from './app/app.module';
import { APP_DESCRIPTION } from './app/app.description';

void runService(AppModule, APP_DESCRIPTION);
