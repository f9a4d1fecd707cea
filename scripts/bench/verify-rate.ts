// One core's Ed25519 signature checks, as the node makes them (the native verifier on a transfer's
// hash): the baseline a node's signed-transfer rate is judged against, measured in the same run.
import { fromHex, generateKeyPair, signTransaction, transferPayload } from '../../sdk/index.js';
import { verifyEd25519 } from '../../chain/signatures.js';
import { withNativeSigner } from '../../keys/native-signer.js';

/** Microseconds one check of a transfer's signature takes on this thread, over `count` transfers. */
export function ed25519VerifyMicros(count = 10_000): number {
  const sender = withNativeSigner(generateKeyPair());
  const signed = Array.from({ length: count }, (_, nonce) =>
    signTransaction(
      { chainId: 'svc-devnet-1', kind: 'transfer', nonce, payload: transferPayload(sender.address, 'OMC', 1n) },
      sender,
    ),
  );
  const started = performance.now();
  for (const tx of signed)
    if (!verifyEd25519(fromHex(tx.signature), fromHex(tx.hash), sender.publicKey))
      throw new Error('a signature did not verify');
  return ((performance.now() - started) / count) * 1000;
}
