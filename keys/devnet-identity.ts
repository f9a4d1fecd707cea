import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { concatBytes } from '../sdk/bytes.js';
import { devnetKey, type KeyPair } from '../sdk/keys.js';
import { withNativeSigner } from './native-signer.js';

/**
 * Who the devnet's validator node is, from the published devnet seed: its libp2p identity and its
 * operator key (the validator's own). The devnet genesis registers that operator as a compute and a
 * storage provider at that peer id, so a fresh devnet runs jobs and keeps objects with no setup. Like
 * every devnet key these are public: any node could claim them, which is what a devnet is for.
 */
export interface DevnetIdentity {
  readonly peerKey: PrivateKey;
  readonly operator: KeyPair;
}

export function devnetValidatorIdentity(): DevnetIdentity {
  const peer = devnetKey('validator-peer', 0);
  return {
    peerKey: privateKeyFromRaw(concatBytes(peer.secretKey, peer.publicKey)),
    operator: withNativeSigner(devnetKey('validator', 0)),
  };
}

/** The devnet validator node's libp2p peer id (what its genesis registrations name). */
export function devnetValidatorPeerId(): string {
  return peerIdFromPrivateKey(devnetValidatorIdentity().peerKey).toString();
}
