import { EnvValidationError } from '@vault/platform/config';

/** The key configuration is missing or wrong: the service refuses to start, naming the problem. */
export class KeyConfigurationError extends EnvValidationError {
  override readonly name = 'KeyConfigurationError';
  constructor(problem: string) {
    super([problem]);
  }
}
