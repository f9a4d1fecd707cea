/** A bad config value; `message` is one line naming the key (or the flag it came from). */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Where each config path came from, so errors can name the flag the user typed. */
export type FlagOrigins = ReadonlyMap<string, string>;
