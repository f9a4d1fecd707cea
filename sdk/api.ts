import { isValidAddress, normalizeAddress, type Address } from './address.js';
import { formatAmount, parseUnits, type Asset } from './amount.js';
import { DOMAIN_ERRORS, invalidAddressReason, isDomainError, RpcError } from './errors.js';
import type { KeyPair } from './keys.js';
import {
  rawTransaction,
  signTransaction,
  transferPayload,
  type Payload,
  type SignedTransaction,
} from './transaction.js';
import type { CommitCertificate } from './block.js';
import type {
  Balance,
  BlockView,
  ChainInfo,
  ConsensusStateView,
  SignedVoteView,
  DealRequest,
  DealView,
  ObjectView,
  ComputeProvider,
  ComputeRegistration,
  ComputeStatus,
  FaucetGrant,
  FaucetStatus,
  JobEstimate,
  JobRequest,
  JobRun,
  StakingStatus,
  UpgradePlanView,
  ValidatorRequest,
  ValidatorSetView,
  JobStatus,
  JobView,
  NodeInfo,
  PeerInfo,
  Receipt,
  StorageProvider,
  StorageRegistration,
  StorageStatus,
  SyncStatus,
  TransactionPage,
  TransactionView,
} from './views.js';
import { toHex } from './bytes.js';
import type { ContractCall, ContractView, DeployRequest, Log } from './contracts.js';
import { accountAddress } from './address.js';

/** What a refused argument was, as given (cut to 100 characters): refused here, before anything was sent, the error carries it as `data.given`. */
const given = (value: unknown): string => String(value).slice(0, 100);

function checkAddress(value: string, field = 'address'): Address {
  if (!isValidAddress(value))
    throw new RpcError(DOMAIN_ERRORS.invalid_address.code, 'invalid_address', {
      reason: invalidAddressReason(field, value),
      field,
      given: given(value),
    });
  return normalizeAddress(value);
}

function checkHash(value: string, field = 'hash'): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', {
      reason: `${field} must be a 32-byte 0x hex hash`,
      field,
      given: given(value),
    });
  return value.toLowerCase();
}

/** A height, or `latest` (the head), `finalized` (the head too: a committed block is final) or `earliest` (block 0). */
export type BlockTag = number | 'latest' | 'finalized' | 'earliest';
const NAMED_TAGS: readonly unknown[] = ['latest', 'finalized', 'earliest'];

function checkBlockTag(value: BlockTag, field = 'blockNumber'): BlockTag {
  if (!NAMED_TAGS.includes(value) && !(Number.isSafeInteger(value) && (value as number) >= 0))
    throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', {
      reason: `${field} must be a non-negative integer, "latest", "finalized" or "earliest"`,
      field,
    });
  return value;
}

/** The `omp.createDeal` payload of a deal request (what `createDeal` signs). */
export function dealPayload(deal: DealRequest): Payload {
  const { object } = deal;
  return {
    cid: object.cid,
    size: object.size,
    root: object.root,
    format: object.format,
    mediaType: object.mediaType,
    replicas: deal.replicas,
    durationBlocks: deal.durationBlocks,
    price: deal.price.toString(),
    provider: checkAddress(deal.provider, 'provider'),
  };
}

/** The `oon.submitJob` payload of a job request. */
export function jobPayload(job: JobRequest): Payload {
  if (job.gasLimit <= 0n)
    throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', {
      reason: 'gasLimit must be positive',
      field: 'gasLimit',
    });
  if (job.gasPrice < 0n)
    throw new RpcError(DOMAIN_ERRORS.invalid_params.code, 'invalid_params', {
      reason: 'gasPrice must not be negative',
      field: 'gasPrice',
    });
  return {
    runtime: job.runtime,
    ...(job.codeCid !== undefined ? { codeCid: job.codeCid } : { code: toHex(job.code) }),
    input: toHex(job.input ?? new Uint8Array(0)),
    args: [...(job.args ?? ['job'])],
    gasLimit: job.gasLimit.toString(),
    gasPrice: job.gasPrice.toString(),
    replicas: job.replicas ?? 1,
  };
}

/** The ABI helpers (viem's encoder), loaded when a contract method is first used: not every SDK user pays for them at start. */
const abiHelpers = () => import('./contracts.js');

/**
 * The typed methods of every first-party RPC method, over any transport: a subclass supplies
 * `rpcCall`. Parameters are checked before anything is sent; responses are shaped (amounts as bigint
 * and as human strings).
 */
export abstract class SvcApi {
  /** Calls any method; a JSON-RPC error is thrown as RpcError. */
  abstract rpcCall<T>(method: string, params?: unknown[]): Promise<T>;

  blockNumber(): Promise<number> {
    return this.rpcCall<number>('svc_blockNumber');
  }

  async getBlockByNumber(height: BlockTag): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByNumber', [checkBlockTag(height)]);
  }

  async getBlockByHash(hash: string): Promise<BlockView> {
    return this.rpcCall<BlockView>('svc_getBlockByHash', [checkHash(hash)]);
  }

  /** Balances at the head, or at a past block (within the node's history window). */
  async getBalance(address: string, blockNumber?: BlockTag): Promise<Balance> {
    const params: unknown[] = [checkAddress(address)];
    if (blockNumber !== undefined) params.push(checkBlockTag(blockNumber));
    const wire = await this.rpcCall<{
      address: Address;
      blockNumber: number;
      omc: string;
      ogt: string;
      bonded?: Record<string, string>;
    }>('svc_getBalance', params);
    const omc = parseUnits(wire.omc);
    const ogt = parseUnits(wire.ogt);
    const bonded = Object.fromEntries(
      Object.entries(wire.bonded ?? {}).map(([purpose, units]) => [purpose, parseUnits(units)]),
    );
    const bondedTotal = Object.values(bonded).reduce((sum, units) => sum + units, 0n);
    return {
      address: wire.address,
      blockNumber: wire.blockNumber,
      omc,
      ogt,
      balanceOMC: formatAmount(omc),
      balanceOGT: formatAmount(ogt),
      bonded,
      bondedOGT: formatAmount(bondedTotal),
    };
  }

  async getNonce(address: string): Promise<number> {
    return this.rpcCall<number>('svc_getNonce', [checkAddress(address)]);
  }

  sendRawTransaction(raw: string): Promise<string> {
    return this.rpcCall<string>('svc_sendRawTransaction', [raw]);
  }

  sendTransaction(tx: SignedTransaction): Promise<string> {
    return this.sendRawTransaction(rawTransaction(tx));
  }

  /** Signs a transaction of any kind with `key` (nonce and chain id fetched when not given) and sends it. */
  async signAndSend(
    key: KeyPair,
    kind: string,
    payload: Payload,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    const [nonce, chainId] = await Promise.all([
      options.nonce ?? this.getNonce(key.address),
      options.chainId ?? this.chainInfo().then((info) => info.chainId),
    ]);
    const tx = signTransaction({ chainId, kind, nonce, payload }, key);
    await this.sendTransaction(tx);
    return tx;
  }

  /** Sends `amount` base units of `asset` from `key`'s account to `to`. */
  async transfer(
    key: KeyPair,
    to: string,
    asset: Asset,
    amount: bigint,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    return this.signAndSend(key, 'transfer', transferPayload(checkAddress(to, 'to'), asset, amount), options);
  }

  /**
   * Deploys a contract with a native `evm.create` (the constructor's arguments encoded with its
   * ABI; the gas limit the node's estimate unless given). Resolves once the node admitted it, with
   * the address the contract will have; wait for its receipt with `waitForTransaction`.
   */
  async deployContract(
    key: KeyPair,
    request: DeployRequest,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<{ txHash: string; address: Address }> {
    const { contractAddressOf, createPayload, deployData } = await abiHelpers();
    const code = deployData(request);
    const nonce = options.nonce ?? (await this.getNonce(key.address));
    const gasLimit =
      request.gasLimit ?? (await this.estimateGas({ from: key.address, data: code, value: request.value }));
    const tx = await this.signAndSend(key, 'evm.create', createPayload(request, code, gasLimit), { ...options, nonce });
    return { txHash: tx.hash, address: contractAddressOf(key.address, nonce) };
  }

  /** Calls a contract function in a transaction (a native `evm.call`, encoded with its ABI). */
  async callContract(
    key: KeyPair,
    call: ContractCall,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    const { callData, callPayload, withDecodedRevert } = await abiHelpers();
    const data = callData(call);
    let gasLimit = call.gasLimit;
    if (gasLimit === undefined) {
      try {
        gasLimit = await this.estimateGas({ from: key.address, to: call.address, data, value: call.value });
      } catch (error) {
        throw withDecodedRevert(error, call.abi);
      }
    }
    return this.signAndSend(key, 'evm.call', callPayload(call, data, gasLimit), options);
  }

  /** Reads a contract function without a transaction (`svc_call`), decoded with its ABI; a revert names its error. */
  async readContract(call: ContractCall & { from?: string; blockNumber?: BlockTag }): Promise<unknown> {
    const { callData, decodeResult, withDecodedRevert } = await abiHelpers();
    const data = callData(call);
    const request = {
      to: accountAddress(call.address),
      data,
      ...(call.from ? { from: accountAddress(call.from) } : {}),
      ...(call.value ? { value: call.value.toString() } : {}),
    };
    try {
      const { output } = await this.rpcCall<{ output: `0x${string}` }>(
        'svc_call',
        call.blockNumber === undefined ? [request] : [request, checkBlockTag(call.blockNumber)],
      );
      return decodeResult(call, output);
    } catch (error) {
      throw withDecodedRevert(error, call.abi);
    }
  }

  /** The least gas limit with which a call or deployment succeeds. */
  async estimateGas(call: { from?: string; to?: string; data: string; value?: bigint }): Promise<number> {
    return this.rpcCall<number>('svc_estimateGas', [
      {
        ...(call.from ? { from: accountAddress(call.from) } : {}),
        ...(call.to ? { to: accountAddress(call.to) } : {}),
        data: call.data,
        ...(call.value ? { value: call.value.toString() } : {}),
      },
    ]);
  }

  /** A contract account: code hash and size, creator, the block it was created in (`not_found` without code). */
  getContract(address: string): Promise<ContractView> {
    return this.rpcCall<ContractView>('svc_getContract', [accountAddress(address)]);
  }

  /** A contract's code at the head (0x for an account without). */
  getCode(address: string): Promise<string> {
    return this.rpcCall<string>('svc_getCode', [accountAddress(address)]);
  }

  /** EVM logs (native transactions' too) by block range (at most 10,000 blocks), contracts and topics. */
  getLogs(
    filter: {
      fromBlock?: BlockTag;
      toBlock?: BlockTag;
      address?: string | string[];
      topics?: (string | string[] | null)[];
    } = {},
  ): Promise<Log[]> {
    return this.rpcCall<Log[]>('svc_getLogs', [filter]);
  }

  async getTransaction(hash: string): Promise<TransactionView> {
    return this.rpcCall<TransactionView>('svc_getTransaction', [checkHash(hash)]);
  }

  /** An account's mined transactions, newest first: those it signed and those whose payload names it. */
  async listTransactions(address: string, page: { limit?: number; cursor?: string } = {}): Promise<TransactionPage> {
    return this.rpcCall<TransactionPage>('svc_listTransactions', [{ address: checkAddress(address), ...page }]);
  }

  async getTransactionReceipt(hash: string): Promise<Receipt> {
    return this.rpcCall<Receipt>('svc_getTransactionReceipt', [checkHash(hash)]);
  }

  /** Resolves with the receipt once a block includes the transaction; rejects after `timeoutMs`. */
  async waitForTransaction(hash: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<Receipt> {
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    const poll = options.pollMs ?? 250;
    for (;;) {
      try {
        return await this.getTransactionReceipt(hash);
      } catch (error) {
        if (!(error instanceof RpcError) || error.message !== 'not_found') throw error;
      }
      if (Date.now() + poll > deadline)
        throw new RpcError(DOMAIN_ERRORS.not_found.code, 'not_found', {
          reason: `transaction ${hash} was not mined within ${options.timeoutMs ?? 60_000} ms`,
          hash,
        });
      await new Promise((resolve) => setTimeout(resolve, poll));
    }
  }

  chainInfo(): Promise<ChainInfo> {
    return this.rpcCall<ChainInfo>('svc_chainInfo');
  }

  nodeInfo(): Promise<NodeInfo> {
    return this.rpcCall<NodeInfo>('svc_nodeInfo');
  }

  /** Waits for a transaction's receipt; a failed one is thrown as the RpcError its error names. */
  private async minedOrThrow(
    hash: string,
    fallback: string,
    data: Record<string, string>,
    options: { timeoutMs?: number; pollMs?: number },
  ): Promise<void> {
    const receipt = await this.waitForTransaction(hash, {
      timeoutMs: options.timeoutMs ?? 120_000,
      pollMs: options.pollMs ?? 250,
    });
    if (receipt.status !== 'failed') return;
    const name = (receipt.error?.name ?? 'invalid_transaction') as keyof typeof DOMAIN_ERRORS;
    throw new RpcError(DOMAIN_ERRORS[name]?.code ?? DOMAIN_ERRORS.invalid_transaction.code, name, {
      reason: receipt.error?.reason ?? fallback,
      ...data,
    });
  }

  /**
   * Waits until a job or deal exists: one a signed transaction made exists once that transaction is
   * mined (a failed one is thrown as its error); one a contract made (its id is no transaction's
   * hash) exists from the call that made it, so it is looked up first.
   */
  private async createdOrMined(
    get: () => Promise<unknown>,
    id: string,
    fallback: string,
    data: Record<string, string>,
    options: { timeoutMs?: number; pollMs?: number },
  ): Promise<void> {
    const exists = await get().then(
      () => true,
      (error: unknown) => {
        if (isDomainError(error, 'not_found')) return false;
        throw error;
      },
    );
    if (!exists) await this.minedOrThrow(id, fallback, data, options);
  }

  /** Signs an `omp.createDeal` for an uploaded object with `key` (the client) and sends it; the deal id is the transaction's hash. */
  async createDeal(
    key: KeyPair,
    deal: DealRequest,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<{ dealId: string }> {
    const tx = await this.signAndSend(key, 'omp.createDeal', dealPayload(deal), options);
    return { dealId: tx.hash };
  }

  /** A deal at the head, or as it was after a past block (within the node's history window). */
  getDeal(dealId: string, blockNumber?: BlockTag): Promise<DealView> {
    return this.rpcCall<DealView>('svc_ompGetDeal', [
      checkHash(dealId, 'dealId'),
      ...(blockNumber === undefined ? [] : [checkBlockTag(blockNumber)]),
    ]);
  }

  getObject(cid: string): Promise<ObjectView> {
    return this.rpcCall<ObjectView>('svc_ompGetObject', [cid]);
  }

  listObjects(
    filter: { client?: string; provider?: string; limit?: number; cursor?: number } = {},
  ): Promise<{ objects: ObjectView[]; cursor: number | null }> {
    return this.rpcCall('svc_ompListObjects', [filter]);
  }

  /** Resolves with the deal once it is no longer pending (active, or failed and refunded); rejects after `timeoutMs`. */
  async waitForDeal(dealId: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<DealView> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    await this.createdOrMined(() => this.getDeal(dealId), dealId, 'the deal was not created', { dealId }, options);
    for (;;) {
      const deal = await this.getDeal(dealId);
      if (deal.status !== 'pending') return deal;
      if (Date.now() > deadline)
        throw new Error(`deal ${dealId} is still pending after ${options.timeoutMs ?? 120_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  }

  /** Signs an `oon.submitJob` with `key` and submits it; the job id is the transaction's hash. */
  async submitJob(
    key: KeyPair,
    job: JobRequest,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<{ jobId: string; txHash: string }> {
    const [nonce, chainId] = await Promise.all([
      options.nonce ?? this.getNonce(key.address),
      options.chainId ?? this.chainInfo().then((info) => info.chainId),
    ]);
    const tx = signTransaction({ chainId, kind: 'oon.submitJob', nonce, payload: jobPayload(job) }, key);
    return this.rpcCall<{ jobId: string; txHash: string }>('svc_oonSubmitJob', [rawTransaction(tx)]);
  }

  /** A job at the head, or as it was after a past block (within the node's history window). */
  getJob(jobId: string, blockNumber?: BlockTag): Promise<JobView> {
    return this.rpcCall<JobView>('svc_oonGetJob', [
      checkHash(jobId, 'jobId'),
      ...(blockNumber === undefined ? [] : [checkBlockTag(blockNumber)]),
    ]);
  }

  listJobs(
    filter: { requester?: string; provider?: string; status?: JobStatus; limit?: number; cursor?: number } = {},
  ): Promise<{ jobs: JobView[]; cursor: number | null }> {
    return this.rpcCall('svc_oonListJobs', [filter]);
  }

  /** Runs the job once on the node without submitting it: its gasUsed, exit and output. */
  estimateJob(job: JobRun): Promise<JobEstimate> {
    const { runtime, code, codeCid, input, args, gasLimit } = jobPayload({ ...job, gasPrice: 0n });
    return this.rpcCall<JobEstimate>('svc_oonEstimate', [
      { runtime, ...(codeCid !== undefined ? { codeCid } : { code }), input, args, gasLimit },
    ]);
  }

  /** Resolves with the job once it is finalized, failed or expired; rejects after `timeoutMs`. `onStatus` sees the job each time its status changes. */
  async waitForJob(
    jobId: string,
    options: { timeoutMs?: number; pollMs?: number; onStatus?: (job: JobView) => void } = {},
  ): Promise<JobView> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    await this.createdOrMined(() => this.getJob(jobId), jobId, 'the job submission failed', { jobId }, options);
    let seen: string | undefined;
    for (;;) {
      const job = await this.getJob(jobId);
      if (job.status !== seen) {
        seen = job.status;
        options.onStatus?.(job);
      }
      if (job.status === 'finalized' || job.status === 'failed' || job.status === 'expired') return job;
      if (Date.now() > deadline)
        throw new RpcError(DOMAIN_ERRORS.not_found.code, 'not_found', {
          reason: `job ${jobId} is still ${job.status} after ${options.timeoutMs ?? 120_000} ms${job.reason ? ` (${job.reason})` : ''}`,
          jobId,
        });
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  }

  /** Registers the node as a compute provider; the operator's key must be held by that node. */
  async oonRegisterNode(registration: ComputeRegistration): Promise<ComputeStatus> {
    return this.rpcCall<ComputeStatus>('svc_oonRegisterNode', [
      { ...registration, operator: checkAddress(registration.operator, 'operator') },
    ]);
  }

  oonNodeStatus(): Promise<ComputeStatus> {
    return this.rpcCall<ComputeStatus>('svc_oonNodeStatus');
  }

  /** Starts unbonding; the bond returns to the operator after the chain's unbonding period. */
  oonUnregisterNode(): Promise<ComputeStatus> {
    return this.rpcCall<ComputeStatus>('svc_oonUnregisterNode');
  }

  oonListProviders(): Promise<ComputeProvider[]> {
    return this.rpcCall<ComputeProvider[]>('svc_oonListProviders');
  }

  /** Signs `staking.createValidator` with `key` (the operator) and submits it: in the set from the next epoch. */
  createValidator(
    key: KeyPair,
    validator: ValidatorRequest,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    const consensusKey = validator.consensusKey ?? toHex(key.publicKey);
    return this.signAndSend(
      key,
      'staking.createValidator',
      { consensusKey: consensusKey.toLowerCase(), stake: validator.stake.toString(), moniker: validator.moniker },
      options,
    );
  }

  /** Signs `staking.addStake`: more OGT (base units) into the signer's stake. */
  addStake(
    key: KeyPair,
    amount: bigint,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    return this.signAndSend(key, 'staking.addStake', { amount: amount.toString() }, options);
  }

  /** Signs `staking.unbond`: the signer leaves the set at the next epoch; its stake returns after the unbonding period. */
  unbondValidator(key: KeyPair, options: { nonce?: number; chainId?: string } = {}): Promise<SignedTransaction> {
    return this.signAndSend(key, 'staking.unbond', {}, options);
  }

  /** Signs `staking.unjail`: a jailed validator whose jail time is over rejoins the set at the next epoch. */
  unjailValidator(key: KeyPair, options: { nonce?: number; chainId?: string } = {}): Promise<SignedTransaction> {
    return this.signAndSend(key, 'staking.unjail', {}, options);
  }

  /**
   * Signs `upgrade.propose` with `key` (a validator's operator): the chain to run rules version
   * `version` from block `height`, adopted once validators with more than 2/3 of the power approve.
   */
  proposeUpgrade(
    key: KeyPair,
    plan: { version: number; height: number; name?: string },
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    const payload = {
      version: plan.version,
      height: plan.height,
      ...(plan.name === undefined ? {} : { name: plan.name }),
    };
    return this.signAndSend(key, 'upgrade.propose', payload, options);
  }

  /** Signs `upgrade.approve` with `key` (a validator's operator) for the pending plan `planId`. */
  approveUpgrade(
    key: KeyPair,
    planId: number,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    return this.signAndSend(key, 'upgrade.approve', { planId }, options);
  }

  /** `svc_getUpgradePlan`: the plan pending, else the last adopted, else null. */
  getUpgradePlan(): Promise<UpgradePlanView | null> {
    return this.rpcCall<UpgradePlanView | null>('svc_getUpgradePlan', []);
  }

  /**
   * Signs `staking.submitEvidence` with `key` (any account; it receives the slashed stake): two signed
   * votes of one validator for one height, round and step, for different values.
   */
  submitEvidence(
    key: KeyPair,
    first: SignedVoteView,
    second: SignedVoteView,
    options: { nonce?: number; chainId?: string } = {},
  ): Promise<SignedTransaction> {
    const vote = (v: SignedVoteView): Payload => ({
      type: v.type,
      height: v.height,
      round: v.round,
      value: v.value,
      validator: checkAddress(v.validator, 'validator'),
      signature: v.signature,
    });
    return this.signAndSend(key, 'staking.submitEvidence', { first: vote(first), second: vote(second) }, options);
  }

  validators(): Promise<ValidatorSetView> {
    return this.rpcCall<ValidatorSetView>('svc_validators', []);
  }

  /** The certificate (precommits of more than 2/3 of the power) that made a block final. */
  getCommit(blockNumber: BlockTag): Promise<CommitCertificate> {
    return this.rpcCall<CommitCertificate>('svc_getCommit', [checkBlockTag(blockNumber)]);
  }

  /** Where consensus stands: the height being decided, the head's certificate, and on a validator node its round. */
  consensusState(): Promise<ConsensusStateView> {
    return this.rpcCall<ConsensusStateView>('svc_consensusState', []);
  }

  stakingStatus(address: string): Promise<StakingStatus> {
    return this.rpcCall<StakingStatus>('svc_stakingStatus', [checkAddress(address, 'address')]);
  }

  async ompRegisterStorageNode(registration: StorageRegistration): Promise<StorageStatus> {
    return this.rpcCall<StorageStatus>('svc_ompRegisterStorageNode', [
      { ...registration, operator: checkAddress(registration.operator, 'operator') },
    ]);
  }

  ompStorageStatus(): Promise<StorageStatus> {
    return this.rpcCall<StorageStatus>('svc_ompStorageStatus');
  }

  ompUnregisterStorageNode(): Promise<StorageStatus> {
    return this.rpcCall<StorageStatus>('svc_ompUnregisterStorageNode');
  }

  ompListProviders(): Promise<StorageProvider[]> {
    return this.rpcCall<StorageProvider[]>('svc_ompListProviders');
  }

  peers(): Promise<PeerInfo[]> {
    return this.rpcCall<PeerInfo[]>('svc_peers');
  }

  /** False when the node is synced (head within 2 blocks of the best head its peers announce), else where its sync started, stands and goes. */
  syncing(): Promise<SyncStatus> {
    return this.rpcCall<SyncStatus>('svc_syncing');
  }

  async faucetRequest(address: string): Promise<FaucetGrant> {
    return this.rpcCall<FaucetGrant>('faucet_request', [checkAddress(address)]);
  }

  async faucetStatus(address: string): Promise<FaucetStatus> {
    return this.rpcCall<FaucetStatus>('faucet_status', [checkAddress(address)]);
  }

  /** The node's OpenRPC document. */
  discover(): Promise<{ openrpc: string; methods: { name: string }[] }> {
    return this.rpcCall('rpc.discover');
  }
}
