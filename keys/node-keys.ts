import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import type { DevnetIdentity } from './devnet-identity.js';
import type { PrivateKey } from '@libp2p/interface';
import { isValidAddress, type Address } from '../sdk/address.js';
import { generateKeyPair as generateAccountKey, type KeyPair } from '../sdk/keys.js';
import { withNativeSigner } from './native-signer.js';
import { KeyFileError, openKey, sealKey, type KeyFile } from './key-file.js';

export interface NodeKeys {
  /** The libp2p identity; its peer id is stable across restarts. */
  readonly peerKey: PrivateKey;
  readonly peerId: string;
  /** The account that signs this node's own transactions (bonds, registrations). */
  readonly operator: KeyPair;
  /** Every operator key this node holds: its own and the imported ones. */
  readonly operators: OperatorKeys;
}

/**
 * Operator keys by address: the node's own (`keys/operator.json`) and those imported (`keys/operators/`).
 * A key imported while the node runs is found on first use: `lookup` reads it from the keystore.
 */
export class OperatorKeys {
  private readonly keys = new Map<Address, KeyPair>();

  constructor(
    keys: readonly KeyPair[],
    private readonly lookup: (address: Address) => KeyPair | undefined = () => undefined,
  ) {
    for (const key of keys) this.keys.set(key.address, key);
  }

  has(address: string): boolean {
    return this.get(address) !== undefined;
  }

  get(address: string): KeyPair | undefined {
    const normalized = address.toLowerCase() as Address;
    const known = this.keys.get(normalized);
    if (known || !isValidAddress(normalized)) return known;
    const found = this.lookup(normalized);
    if (found) this.keys.set(found.address, found);
    return found;
  }

  get addresses(): Address[] {
    return [...this.keys.keys()];
  }
}

/** Writes a file readable by its owner only, atomically (temp file + rename). */
function writePrivate(path: string, data: string | Uint8Array): void {
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, data, { mode: 0o600 });
  renameSync(temp, path);
}

function keysDir(dataDir: string): string {
  const dir = join(resolve(dataDir), 'keys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function readKeyFile(path: string, passphrase: string | undefined): KeyPair {
  let file: KeyFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as KeyFile;
  } catch (error) {
    throw new KeyFileError(`${path}: not a readable key file (${(error as Error).message})`);
  }
  return openKey(file, passphrase, path);
}

/** The passphrase that seals key files: `SVC_KEY_PASSPHRASE`, else the first line of a passphrase file. */
export function keyPassphrase(
  passphraseFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (passphraseFile !== undefined) {
    try {
      return readFileSync(passphraseFile, 'utf8').split('\n')[0]!;
    } catch (error) {
      throw new KeyFileError(
        `--passphrase-file ${passphraseFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  return env.SVC_KEY_PASSPHRASE || undefined;
}

/**
 * The data dir's keys, created on first use:
 * - `keys/p2p.key`: libp2p private key (protobuf)
 * - `keys/operator.json`: this node's operator key
 * - `keys/operators/<address>.json`: imported operator keys
 * Account key files are JSON, mode 0600, sealed with the passphrase when one is given (docs/keys.md).
 */
export async function loadOrCreateNodeKeys(
  dataDir: string,
  passphrase?: string,
  identity?: DevnetIdentity,
): Promise<NodeKeys> {
  const dir = keysDir(dataDir);
  const peerPath = join(dir, 'p2p.key');
  let peerKey: PrivateKey;
  if (existsSync(peerPath)) {
    peerKey = privateKeyFromProtobuf(readFileSync(peerPath));
  } else {
    // A new data dir of the devnet's validator takes the devnet's validator identity (what its genesis names).
    peerKey = identity?.peerKey ?? (await generateKeyPair('Ed25519'));
    writePrivate(peerPath, privateKeyToProtobuf(peerKey));
  }
  const operatorPath = join(dir, 'operator.json');
  let operator: KeyPair;
  if (existsSync(operatorPath)) {
    operator = readKeyFile(operatorPath, passphrase);
  } else {
    operator = withNativeSigner(generateAccountKey());
    writePrivate(operatorPath, `${JSON.stringify(sealKey(operator, passphrase), null, 2)}\n`);
  }
  const importedDir = join(dir, 'operators');
  const imported = existsSync(importedDir)
    ? readdirSync(importedDir)
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map((name) => readKeyFile(join(importedDir, name), passphrase))
    : [];
  const importedLater = (address: Address): KeyPair | undefined => {
    const path = join(importedDir, `${address}.json`);
    return existsSync(path) ? readKeyFile(path, passphrase) : undefined;
  };
  return {
    peerKey,
    peerId: peerIdFromPrivateKey(peerKey).toString(),
    operator,
    operators: new OperatorKeys([operator, ...imported, ...(identity ? [identity.operator] : [])], importedLater),
  };
}

/** Adds an operator key to the data dir's keystore (sealed with the passphrase when given); returns its address. */
export function importOperatorKey(dataDir: string, key: KeyPair, passphrase: string | undefined): Address {
  const dir = join(keysDir(dataDir), 'operators');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writePrivate(join(dir, `${key.address}.json`), `${JSON.stringify(sealKey(key, passphrase), null, 2)}\n`);
  return key.address;
}
