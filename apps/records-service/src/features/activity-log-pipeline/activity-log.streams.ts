import { EventStreams } from '../../capabilities/events/event-streams';
import { ActivityLogEnv } from './activity-log.env';
import { ACTIVITY_LOG_CONSUMER } from './activity-log.writer';

/** The vault events stream and the writer's dead-letter stream, inside the namespace. */
export class ActivityLogStreams extends EventStreams {
  readonly deadLetterStream: string;

  constructor(env: ActivityLogEnv) {
    super(env);
    this.deadLetterStream = this.namespace.stream(ACTIVITY_LOG_CONSUMER.deadLetter?.stream ?? '');
  }
}
