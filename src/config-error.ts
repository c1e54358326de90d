import { SvcError } from '@svckit/sdk/errors';

/** A setting that failed validation; the CLI prints its message and exits 2. */
export class ConfigError extends SvcError<'INVALID_SETTING'> {
  override name = 'ConfigError';
  /** Builds the error; `message` names the setting, what it expected and what it got. */
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_SETTING', message, options);
  }
}
