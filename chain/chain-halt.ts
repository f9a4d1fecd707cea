import { knownRulesVersions } from './rules-version.js';

/**
 * The exit code of a node that stopped before a block whose rules version its release does not
 * implement (and of every later start of that release on the data dir): not 0 (nothing to restart
 * into until the release changes) and not 1 (a crash). The systemd unit does not restart on it.
 */
export const EXIT_RULES_VERSION_UNKNOWN = 3;
/** A node stopped at the height an operator asked (`--halt-height`): a clean stop. */
export const EXIT_HALT_HEIGHT = 0;

/** The chain stops before block `height`: a halt height reached, or rules this release lacks. */
export class ChainHaltError extends Error {
  override name = 'ChainHaltError';
  constructor(
    message: string,
    readonly height: number,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Why the chain must not execute block `height`, or undefined. */
export function haltBefore(
  height: number,
  { haltHeight, version, knows }: { haltHeight?: number; version: number; knows: (version: number) => boolean },
): ChainHaltError | undefined {
  if (haltHeight !== undefined && height >= haltHeight)
    return new ChainHaltError(
      `halt height ${haltHeight} reached: stopped before block ${height}, as --halt-height asked`,
      height,
      EXIT_HALT_HEIGHT,
    );
  if (!knows(version))
    return new ChainHaltError(
      `block ${height} runs chain rules version ${version}, which this release does not implement (it implements ${knownRulesVersions()}): install a release that does, then start the node again on the same data dir`,
      height,
      EXIT_RULES_VERSION_UNKNOWN,
    );
  return undefined;
}
