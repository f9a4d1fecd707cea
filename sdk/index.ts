export { SDK_VERSION } from './version.js';
export { SvcClient, type SvcClientOptions, type BatchCall, type BatchResult } from './client.js';
export { newNonce, authHeaders, authProtocols, WS_PROTOCOL } from './wire.js';
export { SvcApi, jobPayload, dealPayload, type BlockTag } from './api.js';
export type {
  BlockView,
  Balance,
  TransactionView,
  TransactionPage,
  Receipt,
  ChainInfo,
  NodeInfo,
  FaucetGrant,
  FaucetStatus,
  PeerInfo,
  SyncStatus,
  ComputeRegistration,
  StorageRegistration,
  ComputeStatus,
  StorageStatus,
  ComputeProvider,
  StorageProvider,
  ProviderStatus,
  JobCode,
  JobRun,
  JobRequest,
  JobView,
  JobCallbackView,
  JobStatus,
  JobEstimate,
  UploadedObject,
  DealRequest,
  DealView,
  ObjectView,
  StakingStatus,
  UpgradePlanView,
  ValidatorRequest,
  ValidatorSetView,
  ConsensusStateView,
  SignedVoteView,
} from './views.js';
export {
  isValidAddress,
  isValidAddress as isValidSvcAddress,
  normalizeAddress,
  addressFromPublicKey,
  ADDRESS_PREFIX,
  type Address,
  isValidEthAddress,
  accountAddress,
  toEthAddress,
  addressFromEthPublicKey,
  type EthAddress,
} from './address.js';
export {
  parseAmount,
  formatAmount,
  formatAmountShort,
  formatGwei,
  parseUnits,
  amountFromNumber,
  UNIT,
  DECIMALS,
  ASSETS,
  type Asset,
} from './amount.js';
export { payloadInTokens } from './payload-amounts.js';
export {
  RpcError,
  isDomainError,
  DOMAIN_ERRORS,
  STANDARD_ERRORS,
  type DomainErrorName,
  type RpcErrorData,
} from './errors.js';
export {
  generateKeyPair,
  keyPairFromSecret,
  sign,
  verify,
  devnetKey,
  DEVNET_ACCOUNTS,
  DEVNET_SEED,
  type KeyPair,
} from './keys.js';
export { toHex, fromHex, isHex, type Hex } from './bytes.js';
export type { DeployRequest, ContractCall, ContractView, Log } from './contracts.js';
export { encode, decode } from './encoding.js';
export { hash, merkleRoot } from './hash.js';
export {
  encodeHeader,
  headerHash,
  signHeader,
  checkSignedHeader,
  type BlockHeader,
  type SignedBlockHeader,
  type CommitCertificate,
} from './block.js';
export {
  signTransaction,
  rawTransaction,
  decodeTransaction,
  encodeUnsigned,
  encodeSigned,
  transactionHash,
  transferPayload,
  TransactionFormatError,
  MAX_TRANSACTION_GAS,
  type UnsignedTransaction,
  type SignedTransaction,
  type Payload,
  type TransferPayload,
} from './transaction.js';
export {
  SvcWsClient,
  type SvcWsClientOptions,
  type Subscription,
  type HeadEvent,
  type WebSocketLike,
  type WebSocketConstructor,
} from './ws-client.js';
