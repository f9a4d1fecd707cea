import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import type { PrivateKey } from '@libp2p/interface';
import { fromHex, toHex } from '../../sdk/bytes.js';
import { generateKeyPair as generateAccountKey, keyPairFromSecret, type KeyPair } from '../../sdk/keys.js';

export interface NodeKeys {
  /** The libp2p identity; its peer id is stable across restarts. */
  readonly peerKey: PrivateKey;
  readonly peerId: string;
  /** The account that signs this node's own transactions (bonds, registrations). */
  readonly operator: KeyPair;
}

/** Writes a file readable by its owner only, atomically (temp file + rename). */
function writePrivate(path: string, data: string | Uint8Array): void {
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, data, { mode: 0o600 });
  renameSync(temp, path);
}

/**
 * The data dir's keys, created on first use:
 * - `keys/p2p.key`: libp2p private key (protobuf)
 * - `keys/operator.json`: `{ address, publicKey, secretKey }` (hex), mode 0600
 */
export async function loadOrCreateNodeKeys(dataDir: string): Promise<NodeKeys> {
  const dir = join(resolve(dataDir), 'keys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const peerPath = join(dir, 'p2p.key');
  let peerKey: PrivateKey;
  if (existsSync(peerPath)) {
    peerKey = privateKeyFromProtobuf(readFileSync(peerPath));
  } else {
    peerKey = await generateKeyPair('Ed25519');
    writePrivate(peerPath, privateKeyToProtobuf(peerKey));
  }
  const operatorPath = join(dir, 'operator.json');
  let operator: KeyPair;
  if (existsSync(operatorPath)) {
    const stored = JSON.parse(readFileSync(operatorPath, 'utf8')) as { secretKey: string };
    operator = keyPairFromSecret(fromHex(stored.secretKey));
  } else {
    operator = generateAccountKey();
    writePrivate(operatorPath, `${JSON.stringify({ address: operator.address, publicKey: toHex(operator.publicKey), secretKey: toHex(operator.secretKey) }, null, 2)}\n`);
  }
  return { peerKey, peerId: peerIdFromPrivateKey(peerKey).toString(), operator };
}
