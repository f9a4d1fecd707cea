import { describe, expect, it } from 'vitest';
import type { DealView, JobView } from '../../../sdk/index.js';
import type { MinedTx, ReportedBalance } from '../../../scripts/e2e/collect.js';
import { ReferenceModel } from '../../../scripts/e2e/model.js';
import { contractAddressOf } from '../../../sdk/contracts.js';
import { accountAddress, toEthAddress } from '../../../sdk/address.js';
import { privateKeyToAccount } from 'viem/accounts';
import { encodeFunctionData, parseAbi } from 'viem';
import { sha256 } from '@noble/hashes/sha2.js';
import { TEST_KEY_0 as TEST_KEY } from '../../helpers/foundry.js';

const A = `svc1${'a'.repeat(40)}`;
const B = `svc1${'b'.repeat(40)}`;
const P = `svc1${'c'.repeat(40)}`;
const FAUCET = `svc1${'f'.repeat(40)}`;
const genesis = new Map<string, ReportedBalance>([
  [A, { omc: 100n, ogt: 50n, bonded: {} }],
  [P, { omc: 0n, ogt: 2000n, bonded: {} }],
]);

let counter = 0;
function tx(
  from: string,
  nonce: number,
  kind: string,
  payload: Record<string, unknown>,
  status: 'success' | 'failed' = 'success',
  timestamp = 1_000,
): MinedTx {
  counter += 1;
  return {
    height: counter,
    index: 0,
    timestamp,
    hash: `0x${counter.toString(16).padStart(64, '0')}`,
    from,
    nonce,
    kind,
    payload,
    status,
    proposer: P,
  };
}

describe('the e2e reference model', () => {
  it('moves a transfer, and says so when the chain fails a transfer the sender could pay or passes one it could not', () => {
    const model = new ReferenceModel(genesis, FAUCET);
    model.apply(tx(A, 0, 'transfer', { to: B, asset: 'OMC', amount: '60' }), new Map());
    expect([model.account(A).omc, model.account(B).omc, model.account(A).nonce]).toEqual([40n, 60n, 1]);
    // 40 left: a second transfer of 60 must fail; the chain saying success is a disagreement.
    model.apply(tx(A, 1, 'transfer', { to: B, asset: 'OMC', amount: '60' }, 'success'), new Map());
    expect(model.problems).toEqual([expect.stringContaining('the chain says success, the model failed')]);
    // A failed transaction uses its nonce and changes nothing else.
    const fresh = new ReferenceModel(genesis, FAUCET);
    fresh.apply(tx(A, 0, 'transfer', { to: B, asset: 'OGT', amount: '51' }, 'failed'), new Map());
    expect([fresh.account(A).ogt, fresh.account(A).nonce, fresh.problems]).toEqual([50n, 1, []]);
  });

  it('reports a nonce out of sequence and a kind it has no rule for', () => {
    const model = new ReferenceModel(genesis, FAUCET);
    model.apply(tx(A, 1, 'transfer', { to: B, asset: 'OMC', amount: '1' }), new Map());
    model.apply(tx(A, 2, 'oon.challenge', { jobId: '0x00' }), new Map());
    expect(model.problems).toEqual([
      expect.stringContaining('nonce 1 of'),
      expect.stringContaining('no rule for oon.challenge'),
    ]);
  });

  it('judges faucet grants by the cooldown they carry, by block time, and only from the faucet account', () => {
    const model = new ReferenceModel(genesis, FAUCET);
    model.apply(
      tx(FAUCET, 0, 'faucet.mint', { to: B, omc: '10', ogt: '5', cooldownSeconds: 5 }, 'success', 10_000),
      new Map(),
    );
    model.apply(
      tx(FAUCET, 1, 'faucet.mint', { to: B, omc: '10', ogt: '5', cooldownSeconds: 5 }, 'failed', 12_000),
      new Map(),
    );
    model.apply(
      tx(FAUCET, 2, 'faucet.mint', { to: B, omc: '10', ogt: '5', cooldownSeconds: 5 }, 'success', 15_000),
      new Map(),
    );
    expect([model.account(B).omc, model.account(B).ogt, model.problems]).toEqual([20n, 10n, []]);
    model.apply(
      tx(FAUCET, 3, 'faucet.mint', { to: B, omc: '10', ogt: '5', cooldownSeconds: 5 }, 'success', 16_000),
      new Map(),
    );
    model.apply(tx(A, 0, 'faucet.mint', { to: A, omc: '10', ogt: '5' }, 'success'), new Map());
    expect(model.problems).toHaveLength(2);
  });

  it('escrows a job at submission and, from its settled record, pays gas used × gas price and refunds the rest; a wrong fee is a problem', () => {
    const model = new ReferenceModel(genesis, FAUCET);
    const submit = tx(A, 0, 'oon.submitJob', { gasLimit: '10', gasPrice: '3', replicas: 1 });
    model.apply(submit, new Map());
    expect(model.account(A).omc).toBe(70n);
    const record = {
      status: 'finalized',
      providers: [P],
      gasUsed: '4',
      fee: '12',
      escrow: '0',
      attempts: 0,
      missedBy: [],
      settledBy: 'unchallenged',
    } as unknown as JobView;
    model.settle(new Map([[submit.hash, record]]), new Map());
    expect([model.account(A).omc, model.account(P).omc, model.problems]).toEqual([88n, 12n, []]);
    const wrong = new ReferenceModel(genesis, FAUCET);
    wrong.apply({ ...submit }, new Map());
    wrong.settle(new Map([[submit.hash, { ...record, fee: '13' }]]), new Map());
    expect(wrong.problems).toEqual([expect.stringContaining('fee 13')]);
  });

  it("has a job contract pay its job's escrow and callback reserve, and from the settled record pays the providers, the callback's gas to the proposer of its block, and refunds the rest", () => {
    const CODE = '0x6080';
    const model = new ReferenceModel(new Map([[A, { omc: 10_000_000n, ogt: 0n, bonded: {} }]]), FAUCET, 0n, CODE);
    const contract = accountAddress(contractAddressOf(A, 0));
    const create = { ...tx(A, 0, 'evm.create', { code: CODE, value: '5000000' }), contractAddress: contract };
    model.apply(create, new Map());
    const data = encodeFunctionData({
      abi: parseAbi([
        'function count(string codeCid, bytes code, bytes input, uint64 gasLimit, uint256 gasPrice, uint8 replicas) returns (bytes32)',
      ]),
      functionName: 'count',
      args: ['', '0x00', '0x', 1000n, 2n, 1],
    });
    model.apply(tx(A, 1, 'evm.call', { to: contract, data, value: '0' }), new Map());
    // The job's gas and the callback's 200,000 at the job's price.
    expect(model.account(contract).omc).toBe(5_000_000n - 2_000n - 400_000n);
    const jobId = `0x${Buffer.from(sha256(new TextEncoder().encode(`oon-contract-job|${contract}|0`))).toString('hex')}`;
    expect([...model.jobs.keys()]).toEqual([jobId]);
    const CALLED_IN = 77;
    const proposer = `svc1${'d'.repeat(40)}`;
    const record = {
      status: 'finalized',
      providers: [P],
      gasUsed: '100',
      fee: '200',
      escrow: '0',
      attempts: 0,
      missedBy: [],
      settledBy: 'unchallenged',
      callback: { status: 'success', gasUsed: '30000', calledAt: CALLED_IN },
    } as unknown as JobView;
    model.settle(new Map([[jobId, record]]), new Map(), (height) => (height === CALLED_IN ? proposer : undefined));
    expect([model.account(contract).omc, model.account(P).omc, model.account(proposer).omc, model.problems]).toEqual([
      5_000_000n - 200n - 60_000n,
      200n,
      60_000n,
      [],
    ]);
  });

  it("pays each passed proof its period's share, so a term pays exactly its price, and refunds what a closed deal kept", () => {
    const model = new ReferenceModel(genesis, FAUCET);
    const create = tx(A, 0, 'omp.createDeal', { price: '7', replicas: 1, durationBlocks: 25 });
    model.apply(create, new Map());
    const active = { startBlock: 100, endBlock: 125, status: 'active' } as unknown as DealView;
    const deals = new Map([[create.hash, active]]);
    // Periods of 10, 10 and 5 blocks: 7 × 10/25 = 2 (floor), then 5 − 2 = 3... telescoping to 7 in all. The last period is not proved.
    model.apply(tx(P, 0, 'omp.proveStorage', { dealId: create.hash, period: 0 }), deals);
    model.apply(tx(P, 1, 'omp.proveStorage', { dealId: create.hash, period: 1 }), deals);
    expect(model.account(P).omc).toBe(5n);
    model.settle(
      new Map(),
      new Map([
        [
          create.hash,
          { ...active, status: 'closed', escrow: '0', paid: '5', faults: 0, providers: [] } as unknown as DealView,
        ],
      ]),
    );
    expect([model.account(A).omc, model.problems]).toEqual([95n, []]);
  });

  it("follows the example token: a create at the sender and nonce's address, transfers judged by the sender's token balance, gas paid whatever the outcome and the base fee burned", () => {
    const baseFee = 10n;
    const model = new ReferenceModel(genesis, FAUCET, baseFee);
    const token = contractAddressOf(A, 0);
    const supply = 500n.toString(16).padStart(64, '0');
    const gas = { gasUsed: 3, effectiveGasPrice: 12n };
    model.apply(
      {
        ...tx(A, 0, 'evm.create', { code: `0x6080${supply}`, value: '0', gasLimit: 1_000_000 }),
        ...gas,
        contractAddress: token,
      },
      new Map(),
    );
    const transfer = (amount: bigint) =>
      `0xa9059cbb${'0'.repeat(24)}${B.slice(4)}${amount.toString(16).padStart(64, '0')}`;
    model.apply(
      { ...tx(A, 1, 'evm.call', { to: token, data: transfer(200n), value: '0', gasLimit: 100_000 }), ...gas },
      new Map(),
    );
    // 300 left: a transfer of 301 reverts, and still pays its gas.
    model.apply(
      { ...tx(A, 2, 'evm.call', { to: token, data: transfer(301n), value: '0', gasLimit: 100_000 }, 'failed'), ...gas },
      new Map(),
    );
    expect([model.tokenBalance(token, A), model.tokenBalance(token, B), model.problems]).toEqual([300n, 200n, []]);
    // Three transactions × 3 gas × 12 paid; 2 per gas above the base fee went to the proposer, the rest burned.
    expect([model.account(A).omc, model.account(P).omc]).toEqual([100n - 3n * 36n, 3n * 6n]);
    // The chain passing a transfer the sender could not pay, or a create landing elsewhere, is a disagreement.
    model.apply(
      { ...tx(A, 3, 'evm.call', { to: token, data: transfer(301n), value: '0', gasLimit: 100_000 }), ...gas },
      new Map(),
    );
    model.apply(
      {
        ...tx(A, 4, 'evm.create', { code: `0x6080${supply}`, value: '0', gasLimit: 1_000_000 }),
        ...gas,
        contractAddress: token,
      },
      new Map(),
    );
    expect(model.problems).toEqual([
      expect.stringContaining('the chain says success, the model failed'),
      expect.stringContaining('the model expects'),
    ]);
  });

  it("reads an Ethereum transaction's create or call from its signed bytes, as it reads the native kinds", async () => {
    const eth = privateKeyToAccount(TEST_KEY);
    const E = accountAddress(eth.address);
    const model = new ReferenceModel(new Map([[E, { omc: 10n ** 18n, ogt: 0n, bonded: {} }]]), FAUCET, 1n);
    const base = { chainId: 7, maxFeePerGas: 2n, maxPriorityFeePerGas: 0n };
    const supply = 90n.toString(16).padStart(64, '0');
    const created = await eth.signTransaction({ ...base, nonce: 0, gas: 1_000_000n, data: `0x6080${supply}` });
    const token = contractAddressOf(E, 0);
    model.apply(
      { ...tx(E, 0, 'evm.ethereum', { rlp: created }), gasUsed: 10, effectiveGasPrice: 1n, contractAddress: token },
      new Map(),
    );
    const moved = await eth.signTransaction({
      ...base,
      nonce: 1,
      gas: 100_000n,
      to: toEthAddress(token),
      data: `0xa9059cbb${'0'.repeat(24)}${B.slice(4)}${40n.toString(16).padStart(64, '0')}`,
    });
    model.apply({ ...tx(E, 1, 'evm.ethereum', { rlp: moved }), gasUsed: 5, effectiveGasPrice: 1n }, new Map());
    expect([model.tokenBalance(token, E), model.tokenBalance(token, B), model.account(E).omc, model.problems]).toEqual([
      50n,
      40n,
      10n ** 18n - 15n,
      [],
    ]);
  });
});
