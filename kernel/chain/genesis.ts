import { readFileSync } from 'node:fs';
import { isValidAddress, normalizeAddress, type Address } from '../../sdk/address.js';
import { isHex, toHex, type Hex } from '../../sdk/bytes.js';
import { headerHash, type BlockHeader } from '../../sdk/block.js';
import { ZERO_HASH } from '../../sdk/hash.js';
import { devnetKey } from '../../sdk/keys.js';
import { ConfigError } from '../config/errors.js';

/** What a network starts from; every node of the network computes the same genesis hash from it. */
export interface GenesisSpec {
  readonly network: string;
  readonly chainId: string;
  /** Unix milliseconds of block 0. */
  readonly timestamp: number;
  /** The public key of the authority that proposes blocks. */
  readonly validatorKey: Hex;
  readonly validator: Address;
}

const ZERO: Hex = toHex(ZERO_HASH);

export function devnetGenesis(): GenesisSpec {
  const validator = devnetKey('validator', 0);
  return { network: 'devnet', chainId: 'svc-devnet-1', timestamp: Date.UTC(2026, 0, 1), validatorKey: toHex(validator.publicKey), validator: validator.address };
}

export function readGenesisFile(path: string, network: string): GenesisSpec {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`--genesis: cannot read ${path}: ${(error as Error).message}`);
  }
  const { chainId, timestamp, validatorKey, validator } = raw;
  if (typeof chainId !== 'string' || !/^[a-z0-9-]{1,64}$/.test(chainId)) throw new ConfigError(`--genesis: ${path}: "chainId" must be 1-64 of [a-z0-9-]`);
  if (!Number.isSafeInteger(timestamp) || (timestamp as number) < 0) throw new ConfigError(`--genesis: ${path}: "timestamp" must be unix milliseconds`);
  if (!isHex(validatorKey, 32)) throw new ConfigError(`--genesis: ${path}: "validatorKey" must be a 32-byte 0x hex public key`);
  if (!isValidAddress(validator)) throw new ConfigError(`--genesis: ${path}: "validator" must be an svc1 address`);
  return { network, chainId, timestamp: timestamp as number, validatorKey: validatorKey.toLowerCase() as Hex, validator: normalizeAddress(validator) };
}

/** Block 0's header: no parent, no transactions; unsigned, identified by its hash. */
export function genesisHeader(spec: GenesisSpec, stateRoot: Hex = ZERO): BlockHeader {
  return {
    chainId: spec.chainId,
    height: 0,
    parentHash: ZERO,
    timestamp: spec.timestamp,
    proposer: spec.validator,
    proposerKey: spec.validatorKey,
    txRoot: ZERO,
    stateRoot,
    receiptRoot: ZERO,
  };
}

export function genesisHash(spec: GenesisSpec): Hex {
  return headerHash(genesisHeader(spec));
}
