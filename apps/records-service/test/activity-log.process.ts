/**
 * Entry of the OS processes the activity-log process tests start and kill:
 * `writer` runs the production worker mode (`main.js activity-log-writer`);
 * `relay-stalls` runs a relay that, after JetStream acknowledged its first
 * batch, prints PUBLISHED and hangs inside its transaction (rows claimed, not
 * yet marked) until the test kills it.
 */
import { NestFactory } from '@nestjs/core';
import { OutboxRelayService } from '../src/capabilities/events/outbox-relay.service';
import { workerModule } from '@vault/platform/bootstrap';
import { activityLogWorker, runActivityLogWorker } from '../src/features/activity-log-pipeline/activity-log.worker';

async function main(mode: string | undefined): Promise<void> {
  if (mode === 'writer') return runActivityLogWorker('activity-log-writer');
  if (mode !== 'relay-stalls') throw new Error(`unknown mode ${mode}`);
  const ctx = await NestFactory.createApplicationContext(workerModule(activityLogWorker({ relay: false, writer: false })), {
    logger: ['error'],
  });
  await ctx.get(OutboxRelayService).start(async (ids) => {
    process.stdout.write(`PUBLISHED ${ids.length}\n`);
    await new Promise(() => undefined);
  });
}

main(process.argv[2]).catch((err) => {
  console.error(err);
  process.exit(1);
});
