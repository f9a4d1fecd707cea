import { sha256 } from '@noble/hashes/sha2.js';
import { Compile } from 'typebox/compile';
import { encodeFunctionResult, parseAbi, type Hex } from 'viem';
import type { Address } from '../../sdk/address.js';
import { decode, encode } from '../../sdk/encoding.js';
import { fromHex, toHex, utf8 } from '../../sdk/bytes.js';
import type { StorageKind } from './provider-kind.js';
import {
  decodePrecompileCall,
  PrecompileRevert,
  type Precompile,
  type PrecompileCall,
  type PrecompileFactory,
  requirePayingCall,
} from '../evm/precompiles.js';
import { createDeal, CreateDealPayload } from './deals/tx-kinds.js';
import { objectDeals, readDeal, type DealRecord, type DealStatus } from './deals/state.js';
import { objectView } from './deals/view.js';
import { payloadProblem } from '../evm/payload-problem.js';
import { addressOfHex, hexOfAddress } from '../../sdk/address.js';

/** The OMP precompile's address. */
export const OMP_PRECOMPILE_ADDRESS = '0x0000000000000000000000000000000000000801';

// The precompile's functions, written once: its ABI, its documented table and (checked by a test)
// contracts/IOMP.sol all say the same.
const OBJECT_INFO =
  'function objectInfo(string cid) view returns (uint64 size, string mediaType, string format, bytes32[] deals, address[] providers)';
const DEAL_STATUS =
  'function dealStatus(bytes32 dealId) view returns (uint8 status, address client, string cid, uint64 size, uint8 replicas, uint64 startBlock, uint64 endBlock, uint256 price, uint256 escrow, uint256 paid)';
const CREATE_DEAL = 'function createDeal(DealRequest request) returns (bytes32 dealId)';

export const OMP_ABI = parseAbi([
  'struct DealRequest { string cid; uint64 size; bytes32 root; string format; string mediaType; uint8 replicas; uint64 durationBlocks; uint256 price; address provider; }',
  OBJECT_INFO,
  DEAL_STATUS,
  CREATE_DEAL,
]);

/** A deal's status as the precompile answers it (0: no such deal). */
export const DEAL_STATUS_CODES: Readonly<Record<DealStatus, number>> = { pending: 1, active: 2, closed: 3, failed: 4 };

export const OMP_GAS = {
  objectInfo: 3_000n,
  /** Per deal of the object read. */
  objectInfoPerDeal: 500n,
  dealStatus: 3_000n,
  createDeal: 60_000n,
  refused: 3_000n,
} as const;

const checkPayload = Compile(CreateDealPayload);
const contractDealsKey = (contract: Address): string => `omp/contract-deals/${contract}`;

interface DealRequest {
  cid: string;
  size: bigint;
  root: Hex;
  format: string;
  mediaType: string;
  replicas: number;
  durationBlocks: bigint;
  price: bigint;
  provider: Hex;
}

function dealsOf(call: PrecompileCall, cid: string): DealRecord[] {
  const read = (key: string): Uint8Array | undefined => call.ctx.readState(key);
  return objectDeals(read, cid).map((id) => readDeal(read, id)!);
}

function objectInfo(call: PrecompileCall, cid: string): { gas: bigint; output: Uint8Array } {
  const deals = dealsOf(call, cid);
  const view = objectView(cid, deals);
  const gas = OMP_GAS.objectInfo + OMP_GAS.objectInfoPerDeal * BigInt(deals.length);
  if (!view) throw new PrecompileRevert(`not_found: no deal stores ${cid}`, gas);
  // A contract gets the deals that keep the object now; dealStatus reads any deal, closed ones too.
  const active = deals.filter((deal) => deal.status === 'active').map((deal) => deal.dealId as Hex);
  const output = encodeFunctionResult({
    abi: OMP_ABI,
    functionName: 'objectInfo',
    result: [BigInt(view.size), view.mediaType, view.format, active, view.providers.map(hexOfAddress)],
  });
  return { gas, output: fromHex(output) };
}

function dealStatus(call: PrecompileCall, dealId: Hex): { gas: bigint; output: Uint8Array } {
  const deal = readDeal((key) => call.ctx.readState(key), dealId.toLowerCase());
  const result = deal
    ? ([
        DEAL_STATUS_CODES[deal.status],
        hexOfAddress(deal.client),
        deal.cid,
        BigInt(deal.size),
        deal.replicas,
        BigInt(deal.startBlock ?? 0),
        BigInt(deal.endBlock ?? 0),
        BigInt(deal.price),
        BigInt(deal.escrow),
        BigInt(deal.paid),
      ] as const)
    : ([0, `0x${'0'.repeat(40)}` as Hex, '', 0n, 0, 0n, 0n, 0n, 0n, 0n] as const);
  return {
    gas: OMP_GAS.dealStatus,
    output: fromHex(encodeFunctionResult({ abi: OMP_ABI, functionName: 'dealStatus', result: result as never })),
  };
}

function createDealFromContract(call: PrecompileCall, kind: StorageKind, request: DealRequest): Uint8Array {
  requirePayingCall(call, 'createDeal', OMP_GAS.refused);
  const payload = {
    cid: request.cid,
    size: Number(request.size),
    root: request.root.toLowerCase(),
    format: request.format,
    mediaType: request.mediaType,
    replicas: request.replicas,
    durationBlocks: Number(request.durationBlocks),
    price: request.price.toString(),
    provider: addressOfHex(request.provider),
  };
  if (!checkPayload.Check(payload)) {
    throw new PrecompileRevert(
      `invalid_params: ${payloadProblem(CreateDealPayload, checkPayload.Errors(payload))}`,
      OMP_GAS.refused,
    );
  }
  const { ctx } = call;
  const raw = ctx.readState(contractDealsKey(call.caller));
  const n = raw ? decode<number>(raw) : 0;
  const dealId = toHex(sha256(utf8(`omp-contract-deal|${call.caller}|${n}`)));
  ctx.writeState(contractDealsKey(call.caller), encode(n + 1));
  createDeal(ctx, kind, call.caller, dealId, payload as never);
  return fromHex(encodeFunctionResult({ abi: OMP_ABI, functionName: 'createDeal', result: dealId as Hex }));
}

/** The OMP precompile: contracts read objects and deals, and make deals paid from their OMC by the rules of omp.createDeal. */
export function ompPrecompile<Svc>(precompile: PrecompileFactory<Svc>, kind: StorageKind): Precompile {
  return precompile({
    address: OMP_PRECOMPILE_ADDRESS,
    name: 'OMP',
    summary:
      'Storage from contracts: read an object and its deals, and make a deal paid from the calling contract exactly as omp.createDeal does',
    revertGas: OMP_GAS.refused,
    functions: [
      {
        signature: OBJECT_INFO,
        gas: `${OMP_GAS.objectInfo} + ${OMP_GAS.objectInfoPerDeal} per deal of the object`,
        summary:
          'the object and its active deals, with the providers keeping it (svc_ompGetObject also lists its other deals); reverts not_found for an object no deal stores',
      },
      {
        signature: DEAL_STATUS,
        gas: `${OMP_GAS.dealStatus}`,
        summary:
          'a deal as the chain holds it: status 0 none (or its record has left the state, dealRecordBlocks after it ended), 1 pending, 2 active, 3 closed, 4 failed (start and end 0 until active)',
      },
      {
        signature: CREATE_DEAL,
        gas: `${OMP_GAS.createDeal}`,
        summary: 'a deal for an uploaded object, escrowing price × replicas from the calling contract',
      },
    ],
    run(call) {
      const decoded = decodePrecompileCall(OMP_ABI, call.input, OMP_GAS.refused);
      if (decoded.functionName === 'objectInfo') return objectInfo(call, decoded.args[0]);
      if (decoded.functionName === 'dealStatus') return dealStatus(call, decoded.args[0]);
      return { gas: OMP_GAS.createDeal, output: createDealFromContract(call, kind, decoded.args[0] as DealRequest) };
    },
  });
}
