/** A setting that failed validation; the CLI prints its message and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
