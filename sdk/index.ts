export { SvcClient, type SvcClientOptions, type BlockView } from './client.js';
export { isValidAddress, normalizeAddress, addressFromPublicKey, ADDRESS_PREFIX, type Address } from './address.js';
export { RpcError, DOMAIN_ERRORS, STANDARD_ERRORS, type DomainErrorName, type RpcErrorData } from './errors.js';
export { generateKeyPair, keyPairFromSecret, sign, verify, devnetKey, DEVNET_SEED, type KeyPair } from './keys.js';
export { toHex, fromHex, isHex, type Hex } from './bytes.js';
export { encode, decode } from './encoding.js';
export { hash, merkleRoot } from './hash.js';
export { encodeHeader, headerHash, signHeader, checkSignedHeader, type BlockHeader, type SignedBlockHeader } from './block.js';
