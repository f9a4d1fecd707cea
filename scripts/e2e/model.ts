import { sha256 } from '@noble/hashes/sha2.js';
import { decodeFunctionData, getContractAddress, parseAbi, parseTransaction, type Hex } from 'viem';
import type { DealView, JobView } from '../../sdk/index.js';
import { accountAddress, toEthAddress } from '../../sdk/address.js';
import type { MinedTx, ReportedBalance } from './collect.js';

/** ERC-20 `transfer(address,uint256)`: the one call of the workload's tokens the model follows. */
const TRANSFER_SELECTOR = '0xa9059cbb';

/** The job contract's one call the model follows (contracts/WordCount.sol), and the callback gas it asks for. */
const JOB_CONTRACT_ABI = parseAbi([
  'function count(string codeCid, bytes code, bytes input, uint64 gasLimit, uint256 gasPrice, uint8 replicas) returns (bytes32)',
]);
const JOB_CONTRACT_CALLBACK_GAS = 200_000n;

/** Blocks between a deal's proofs of storage (a chain constant: each period's challenge is issued at its start). */
const PROOF_PERIOD_BLOCKS = 10;

export interface ModelAccount {
  omc: bigint;
  ogt: bigint;
  bonded: Record<string, bigint>;
  nonce: number;
}

export interface ModelJob {
  readonly requester: string;
  escrow: bigint;
  readonly gasPrice: bigint;
  /** A contract's job: OMC held for its callback until the call is made. */
  readonly callbackReserve?: bigint;
}

interface ModelDeal {
  readonly client: string;
  escrow: bigint;
  readonly price: bigint;
  readonly durationBlocks: number;
  paid: bigint;
}

const amount = (value: unknown): bigint => BigInt(value as string);

/**
 * A plain model of what the chain's rules do to balances, nonces, bonds, stakes, escrows and the
 * workload's ERC-20 balances, replayed from genesis over the mined transactions, written apart from
 * the node's code. It decides on its own whether a transfer, a faucet grant or a token transfer
 * succeeds; for the other kinds it takes the receipt's verdict and applies the effect itself. An EVM
 * transaction pays gas used × its price whatever its outcome (the receipt says how much gas: the
 * model does not run the EVM), the base fee's part burned. What the chain does at the end of a block (paying a job, closing a
 * deal, slashing a provider that missed a deadline) it takes from the job and deal records at the
 * compared height, and checks by arithmetic: a fee is gas used × gas price per paid provider, what
 * is left goes back, a deal pays out exactly its escrow. Slashes it cannot place (which requester or
 * client got which share of a provider's bond) are checked as a sum. Anything it does not know is a
 * problem, not a guess.
 */
export class ReferenceModel {
  readonly accounts = new Map<string, ModelAccount>();
  readonly jobs = new Map<string, ModelJob>();
  readonly deals = new Map<string, ModelDeal>();
  /** Where the chain and the model disagree while replaying. */
  readonly problems: string[] = [];
  /** Accounts a slash may have paid (requesters of jobs with missed deadlines, clients of deals with faults), and providers it may have cut. */
  readonly slashBeneficiaries = new Set<string>();
  readonly slashable = new Map<string, Set<string>>();
  private readonly lastGrant = new Map<string, number>();
  /** The ERC-20 contracts mined creates made (the workload deploys only its example token): holders' balances. */
  readonly tokens = new Map<string, Map<string, bigint>>();
  /** Job contracts mined creates made, with how many jobs each has submitted. */
  readonly jobContracts = new Map<string, number>();
  /** EVM transactions replayed: how many, how many came as Ethereum transactions, how many failed (reverted or out of gas). */
  readonly evm = { transactions: 0, ethereum: 0, failed: 0 };

  constructor(
    private readonly genesis: ReadonlyMap<string, ReportedBalance>,
    private readonly faucet: string,
    /** The EVM's base fee: burned from every EVM transaction's fee (what is paid above it goes to the proposer). */
    private readonly baseFee = 0n,
    /** The workload's job contract's creation code: its creates make job contracts, not tokens. */
    private readonly jobContractCode?: string,
  ) {}

  /** A holder's balance of a token the model knows. */
  tokenBalance(token: string, holder: string): bigint {
    return this.tokens.get(token)?.get(holder) ?? 0n;
  }

  /** An EVM transaction's fee, whatever its outcome: gas used × the price paid; the base fee's part is burned. */
  private payGas(tx: MinedTx): void {
    const price = tx.effectiveGasPrice ?? 0n;
    const gas = BigInt(tx.gasUsed ?? 0);
    this.account(tx.from).omc -= gas * price;
    if (price > this.baseFee) this.account(tx.proposer).omc += gas * (price - this.baseFee);
  }

  /** A token transfer's recipient and amount from its calldata, or undefined for other calldata. */
  private static tokenTransfer(data: string): { to: string; value: bigint } | undefined {
    if (!data.startsWith(TRANSFER_SELECTOR) || data.length !== 2 + 8 + 128) return undefined;
    return { to: accountAddress(`0x${data.slice(10 + 24, 10 + 64)}`), value: BigInt(`0x${data.slice(10 + 64)}`) };
  }

  account(address: string): ModelAccount {
    let account = this.accounts.get(address);
    if (!account) {
      const start = this.genesis.get(address);
      account = { omc: start?.omc ?? 0n, ogt: start?.ogt ?? 0n, bonded: { ...(start?.bonded ?? {}) }, nonce: 0 };
      this.accounts.set(address, account);
    }
    return account;
  }

  private move(from: string, to: string | undefined, asset: 'OMC' | 'OGT', value: bigint): void {
    const key = asset === 'OMC' ? 'omc' : 'ogt';
    this.account(from)[key] -= value;
    if (to) this.account(to)[key] += value;
  }

  private bond(address: string, purpose: string, value: bigint): void {
    const account = this.account(address);
    account.ogt -= value;
    account.bonded[purpose] = (account.bonded[purpose] ?? 0n) + value;
  }

  /** An Ethereum transaction's recipient (undefined for a create), calldata and value, from its signed bytes. */
  private static ethereumCall(tx: MinedTx): { to?: string; data: string; value: bigint } {
    const parsed = parseTransaction(tx.payload.rlp as Hex);
    return {
      ...(parsed.to ? { to: accountAddress(parsed.to) } : {}),
      data: parsed.data ?? '0x',
      value: parsed.value ?? 0n,
    };
  }

  /** A create of the example token: at its sender and nonce's address, the supply (its constructor's one argument, the last word of the init code) to the sender. */
  private create(tx: MinedTx, code: string, value: bigint): void {
    const address = accountAddress(getContractAddress({ from: toEthAddress(tx.from), nonce: BigInt(tx.nonce) }));
    if (tx.contractAddress !== address)
      this.problems.push(
        `${tx.hash} (block ${tx.height}): the create made ${tx.contractAddress}, the model expects ${address} (sender and nonce)`,
      );
    this.move(tx.from, address, 'OMC', value);
    if (this.jobContractCode !== undefined && code.toLowerCase() === this.jobContractCode.toLowerCase())
      this.jobContracts.set(address, 0);
    else this.tokens.set(address, new Map([[tx.from, BigInt(`0x${code.slice(-64)}`)]]));
  }

  /**
   * A job contract's `count`: the contract pays the job's escrow and its callback's (the job's gas
   * price) as a signed submission would, under the id of its n-th job.
   */
  private contractJob(contract: string, data: string): void {
    const { args } = decodeFunctionData({ abi: JOB_CONTRACT_ABI, data: data as Hex });
    const [, , , gasLimit, gasPrice, replicas] = args;
    const reserve = JOB_CONTRACT_CALLBACK_GAS * gasPrice;
    const escrow = gasLimit * gasPrice * BigInt(replicas) + reserve;
    const n = this.jobContracts.get(contract)!;
    this.jobContracts.set(contract, n + 1);
    const jobId = `0x${Buffer.from(sha256(new TextEncoder().encode(`oon-contract-job|${contract}|${n}`))).toString('hex')}`;
    this.move(contract, undefined, 'OMC', escrow);
    this.jobs.set(jobId, { requester: contract, escrow, gasPrice, callbackReserve: reserve });
  }

  /** A call: the OMC it carries moves; a token transfer moves the amount (the verdict was judged); a call to no token does nothing else. */
  private call(tx: MinedTx, to: string, data: string, value: bigint): void {
    this.move(tx.from, accountAddress(to), 'OMC', value);
    if (this.jobContracts.has(accountAddress(to)) && tx.status === 'success')
      return this.contractJob(accountAddress(to), data);
    const token = this.tokens.get(accountAddress(to));
    const transfer = ReferenceModel.tokenTransfer(data);
    if (!token || !transfer) return;
    token.set(tx.from, (token.get(tx.from) ?? 0n) - transfer.value);
    token.set(transfer.to, (token.get(transfer.to) ?? 0n) + transfer.value);
  }

  /** Replays one mined transaction. */
  apply(tx: MinedTx, deals: ReadonlyMap<string, DealView>): void {
    const sender = this.account(tx.from);
    if (tx.nonce !== sender.nonce)
      this.problems.push(
        `${tx.hash} (block ${tx.height}): nonce ${tx.nonce} of ${tx.from}, whose next nonce was ${sender.nonce}`,
      );
    sender.nonce = tx.nonce + 1;
    if (tx.gasUsed !== undefined) this.payGas(tx);
    if (tx.kind.startsWith('evm.')) {
      this.evm.transactions += 1;
      if (tx.kind === 'evm.ethereum') this.evm.ethereum += 1;
      if (tx.status === 'failed') this.evm.failed += 1;
    }
    const judged = this.judge(tx);
    if (judged !== undefined && judged !== tx.status) {
      this.problems.push(
        `${tx.hash} (block ${tx.height}, ${tx.kind}): the chain says ${tx.status}${tx.error ? ` (${tx.error.name})` : ''}, the model ${judged}`,
      );
      return;
    }
    if (tx.status === 'failed') return;
    const p = tx.payload;
    switch (tx.kind) {
      case 'transfer':
        return this.move(tx.from, p.to as string, p.asset as 'OMC' | 'OGT', amount(p.amount));
      case 'faucet.mint': {
        const to = this.account(p.to as string);
        to.omc += amount(p.omc);
        to.ogt += amount(p.ogt);
        if (p.cooldownSeconds !== undefined) this.lastGrant.set(p.to as string, tx.timestamp);
        return;
      }
      case 'oon.register':
        return this.bond(tx.from, 'compute', amount(p.bond));
      case 'omp.register':
        return this.bond(tx.from, 'storage', amount(p.bond));
      case 'staking.createValidator':
        return this.bond(tx.from, 'stake', amount(p.stake));
      case 'staking.addStake':
        return this.bond(tx.from, 'stake', amount(p.amount));
      case 'staking.unjail':
      case 'oon.commitResult':
      case 'oon.revealResult':
      case 'oon.reportResults':
      case 'oon.supplyCode':
      case 'omp.acceptDeal':
        return;
      case 'evm.create':
        return this.create(tx, p.code as string, BigInt(p.value as string));
      case 'evm.call':
        return this.call(tx, p.to as string, p.data as string, BigInt(p.value as string));
      case 'evm.ethereum': {
        const { to, data, value } = ReferenceModel.ethereumCall(tx);
        return to === undefined ? this.create(tx, data, value) : this.call(tx, to, data, value);
      }
      case 'oon.submitJob': {
        const escrow = amount(p.gasLimit) * amount(p.gasPrice) * BigInt((p.replicas as number | undefined) ?? 1);
        this.move(tx.from, undefined, 'OMC', escrow);
        this.jobs.set(tx.hash, { requester: tx.from, escrow, gasPrice: amount(p.gasPrice) });
        return;
      }
      case 'omp.createDeal': {
        const escrow = amount(p.price) * BigInt(p.replicas as number);
        this.move(tx.from, undefined, 'OMC', escrow);
        this.deals.set(tx.hash, {
          client: tx.from,
          escrow,
          price: amount(p.price),
          durationBlocks: p.durationBlocks as number,
          paid: 0n,
        });
        return;
      }
      case 'omp.proveStorage': {
        const deal = this.deals.get(p.dealId as string);
        const record = deals.get(p.dealId as string);
        if (!deal || !record || record.startBlock === null || record.endBlock === null) {
          this.problems.push(
            `${tx.hash}: a proof for deal ${p.dealId as string}, which the model does not know as started`,
          );
          return;
        }
        // The period's share of the price: telescoping, so a term's shares add up to the price.
        const issuedAt = record.startBlock + (p.period as number) * PROOF_PERIOD_BLOCKS;
        const term = BigInt(deal.durationBlocks);
        const share =
          (deal.price * BigInt(Math.min(issuedAt + PROOF_PERIOD_BLOCKS, record.endBlock) - record.startBlock)) / term -
          (deal.price * BigInt(issuedAt - record.startBlock)) / term;
        this.account(tx.from).omc += share;
        deal.escrow -= share;
        deal.paid += share;
        return;
      }
      default:
        this.problems.push(`${tx.hash} (block ${tx.height}): the model has no rule for ${tx.kind}`);
    }
  }

  /**
   * The model's own verdict where it has one: transfers (funds), faucet grants (signer, cooldown by
   * block time), token transfers (the sender's token balance; a call to an address with no code yet
   * does nothing and succeeds).
   */
  private judge(tx: MinedTx): 'success' | 'failed' | undefined {
    const p = tx.payload;
    const call =
      tx.kind === 'evm.call'
        ? { to: p.to as string, data: p.data as string, value: BigInt(p.value as string) }
        : tx.kind === 'evm.ethereum'
          ? ReferenceModel.ethereumCall(tx)
          : undefined;
    if (call?.to !== undefined && this.jobContracts.has(accountAddress(call.to))) return undefined;
    if (call?.to !== undefined && call.value === 0n) {
      const token = this.tokens.get(accountAddress(call.to));
      const transfer = ReferenceModel.tokenTransfer(call.data);
      if (!token) return 'success';
      if (transfer) return (token.get(tx.from) ?? 0n) >= transfer.value ? 'success' : 'failed';
    }
    if (tx.kind === 'transfer') {
      const account = this.account(tx.from);
      return (p.asset === 'OMC' ? account.omc : account.ogt) >= amount(p.amount) ? 'success' : 'failed';
    }
    if (tx.kind === 'faucet.mint') {
      if (tx.from !== this.faucet) return 'failed';
      const last = this.lastGrant.get(p.to as string);
      return p.cooldownSeconds !== undefined &&
        last !== undefined &&
        tx.timestamp - last < (p.cooldownSeconds as number) * 1000
        ? 'failed'
        : 'success';
    }
    return undefined;
  }

  private mightBeSlashed(provider: string, purpose: string): void {
    this.slashable.set(provider, (this.slashable.get(provider) ?? new Set()).add(purpose));
  }

  /**
   * What the ends of blocks did up to the compared height, from the records there: settled jobs pay
   * their providers and refund the rest, closed or failed deals return what is left in escrow.
   */
  settle(
    jobs: ReadonlyMap<string, JobView>,
    deals: ReadonlyMap<string, DealView>,
    proposerOf: (height: number) => string | undefined = () => undefined,
  ): void {
    for (const [jobId, job] of this.jobs) {
      const record = jobs.get(jobId);
      if (!record) {
        this.problems.push(`job ${jobId}: no record at the compared height`);
        continue;
      }
      if (record.missedBy.length > 0) {
        this.slashBeneficiaries.add(job.requester);
        for (const provider of record.missedBy) this.mightBeSlashed(provider, 'compute');
      }
      if (record.status === 'finalized') {
        const each = BigInt(record.gasUsed ?? '0') * job.gasPrice;
        const paid = each * BigInt(record.providers.length);
        if (record.fee !== paid.toString())
          this.problems.push(
            `job ${jobId}: fee ${record.fee}, but gas used ${record.gasUsed} × gas price ${job.gasPrice} × ${record.providers.length} provider(s) is ${paid}`,
          );
        if (record.settledBy === 're-execution')
          this.problems.push(
            `job ${jobId}: settled by re-execution, so some provider reported a wrong result (no provider of this run is dishonest)`,
          );
        for (const provider of record.providers) this.account(provider).omc += each;
        this.account(job.requester).omc += job.escrow - paid - (job.callbackReserve ?? 0n);
        job.escrow = job.callbackReserve ?? 0n;
      } else if (record.status === 'failed' || record.status === 'expired') {
        this.account(job.requester).omc += job.escrow - (job.callbackReserve ?? 0n);
        job.escrow = job.callbackReserve ?? 0n;
      }
      // A contract's job: once settled, the chain called the contract back (in that block's end, or a
      // later one's): its gas at the job's price to that block's proposer, the rest of the reserve back.
      if (job.callbackReserve !== undefined && record.callback?.status != null && record.callback.calledAt !== null) {
        const fee = BigInt(record.callback.gasUsed ?? '0') * job.gasPrice;
        const proposer = proposerOf(record.callback.calledAt);
        if (proposer === undefined)
          this.problems.push(
            `job ${jobId}: called back in block ${record.callback.calledAt}, whose proposer the model was not given`,
          );
        else this.account(proposer).omc += fee;
        this.account(job.requester).omc += job.callbackReserve - fee;
        job.escrow = 0n;
      }
      if (record.escrow !== job.escrow.toString())
        this.problems.push(
          `job ${jobId} (${record.status}): escrow ${record.escrow} on chain, ${job.escrow} in the model`,
        );
    }
    for (const [dealId, deal] of this.deals) {
      const record = deals.get(dealId);
      if (!record) {
        this.problems.push(`deal ${dealId}: no record at the compared height`);
        continue;
      }
      if (record.faults > 0) {
        this.slashBeneficiaries.add(deal.client);
        for (const replica of record.providers)
          if (replica.faults > 0) this.mightBeSlashed(replica.provider, 'storage');
      }
      if (record.paid !== deal.paid.toString())
        this.problems.push(`deal ${dealId}: paid ${record.paid} on chain, ${deal.paid} in the model`);
      if (record.status === 'closed' || record.status === 'failed') {
        this.account(deal.client).omc += deal.escrow;
        deal.escrow = 0n;
      }
      if (record.escrow !== deal.escrow.toString())
        this.problems.push(
          `deal ${dealId} (${record.status}): escrow ${record.escrow} on chain, ${deal.escrow} in the model`,
        );
    }
  }
}
