import { decode, encode } from '../sdk/encoding.js';
import type { StateReader } from './state/overlay.js';
import { RULES_VERSION_KEY } from './rules-version.js';

/**
 * A network's rules schedule: the version of block 0 (`params/rulesVersion`), then each adopted
 * upgrade's version from its height. Kept in the state by the chain (`chain/rulesSchedule`, CBOR
 * `[[version, height], ...]` by height); the upgrade plans' rules add to it, as the chain's state
 * delegate. Entries are only ever added, each above the last, so the state at the head answers for
 * every earlier height as well.
 */
export const RULES_SCHEDULE_KEY = 'chain/rulesSchedule';

export interface ScheduledVersion {
  readonly version: number;
  /** The first block executed under `version`. */
  readonly height: number;
}

export class RulesSchedule {
  constructor(
    readonly genesisVersion: number,
    readonly upgrades: readonly ScheduledVersion[],
  ) {}

  /** The schedule a state holds. */
  static of(state: StateReader): RulesSchedule {
    const genesis = state.get(RULES_VERSION_KEY);
    const upgrades = state.get(RULES_SCHEDULE_KEY);
    return new RulesSchedule(
      genesis ? decode<number>(genesis) : 0,
      upgrades ? decode<[number, number][]>(upgrades).map(([version, height]) => ({ version, height })) : [],
    );
  }

  /** The version block `height` executes under. */
  versionAt(height: number): number {
    let version = this.genesisVersion;
    for (const upgrade of this.upgrades) if (upgrade.height <= height) version = upgrade.version;
    return version;
  }

  /** The last version scheduled (in force now or from a later height). */
  get newest(): ScheduledVersion {
    return this.upgrades.at(-1) ?? { version: this.genesisVersion, height: 0 };
  }

  /** The schedule with one more upgrade: a higher version, from a height above the last one's. */
  with(upgrade: ScheduledVersion): RulesSchedule {
    const last = this.newest;
    if (upgrade.version <= last.version || upgrade.height <= last.height)
      throw new RangeError(
        `an upgrade to ${upgrade.version} at ${upgrade.height} does not follow version ${last.version} at ${last.height}`,
      );
    return new RulesSchedule(this.genesisVersion, [...this.upgrades, upgrade]);
  }

  /** The value of `chain/rulesSchedule`. */
  encodeUpgrades(): Uint8Array {
    return encode(this.upgrades.map((u) => [u.version, u.height]));
  }

  /** Every version with the height it starts at, block 0's first. */
  entries(): ScheduledVersion[] {
    return [{ version: this.genesisVersion, height: 0 }, ...this.upgrades];
  }
}
