import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlock } from '@ethereumjs/block';
import { createLegacyTx } from '@ethereumjs/tx';
import { Account, Address as EvmAddress, hexToBytes } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { evmCommon } from '../../../chain/ethereum-envelope.js';
import { probeGasNeed, watchGasReads } from '../../../plugins/evm/gas-probe.js';
import { withSender } from '../../../plugins/evm/runner.js';
import { rpc, startTestNode, type TestNode } from '../../helpers/test-node.js';
import { TEST_ADDRESS_0 } from '../../helpers/foundry.js';

const SENDER = 'svc1f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CONTRACT = new EvmAddress(hexToBytes('0x00000000000000000000000000000000000c0de0'));
const CAP = 1_000_000n;

// Runtime code, assembled by hand: each ends in STOP.
const STORE_ONE = '0x600160005500'; // slot 0 := 1
const STORE_ONE_TWICE = '0x6001600055600160005500'; // slot 0 := 1, then 1 again: a warm no-op SSTORE (100 gas) last
const READ_GAS = '0x5a50600160005500'; // GAS, POP, then slot 0 := 1
const CALL_IDENTITY = '0x5f5f5f5f5f600461fffff15000'; // CALL the identity precompile with 65,535 gas (no GAS read)
const CLEAR_SLOT = '0x5f60015500'; // slot 1 := 0, where it held 1: a refund

describe('what one run shows of the least gas limit', () => {
  let vm: VM;
  beforeAll(async () => {
    vm = await createVM({ common: evmCommon(0x737663) });
    watchGasReads(vm.evm);
  });

  /** Runs a call to CONTRACT holding `code` (slot 1 holding 1) with `gasLimit`; what the probe says and whether the run succeeded. */
  async function run(
    code: string,
    gasLimit: bigint,
    to = CONTRACT,
  ): Promise<{ need: bigint | undefined; used: bigint; ok: boolean }> {
    const state = vm.stateManager;
    await state.putAccount(CONTRACT, new Account());
    await state.putCode(CONTRACT, hexToBytes(code as `0x${string}`));
    await state.putStorage(CONTRACT, new Uint8Array(32), new Uint8Array());
    await state.putStorage(CONTRACT, hexToBytes(`0x${'00'.repeat(31)}01`), new Uint8Array([1]));
    const tx = withSender(createLegacyTx({ to, gasLimit, gasPrice: 0n }, { common: vm.common, freeze: false }), SENDER);
    const end = probeGasNeed(vm.evm, gasLimit);
    const block = createBlock({ header: { baseFeePerGas: 0n, gasLimit: CAP } }, { common: vm.common });
    const result = await runTx(vm, {
      tx,
      block,
      skipNonce: true,
      skipBalance: true,
      skipHardForkValidation: true,
      skipBlockGasLimitValidation: true,
    });
    return { need: end(result), used: result.totalGasSpent, ok: result.execResult.exceptionError === undefined };
  }

  async function expectLeast(code: string, need: bigint): Promise<void> {
    expect((await run(code, need)).ok).toBe(true);
    expect((await run(code, need - 1n)).ok).toBe(false);
  }

  it('is what the run used when its code reads no gas', async () => {
    const { need, used, ok } = await run(STORE_ONE, CAP);
    expect(ok).toBe(true);
    expect(need).toBe(used);
    await expectLeast(STORE_ONE, need!);
  });

  it('is more than the run used where an SSTORE needs the sentry’s 2,300 gas left, and exactly the least then', async () => {
    const { need, used } = await run(STORE_ONE_TWICE, CAP);
    // The last SSTORE costs 100 but needs 2,301 left: 2,201 more than the run used.
    expect(need).toBe(used + 2201n);
    await expectLeast(STORE_ONE_TWICE, need!);
  });

  it('is not shown by a run that reads the gas left, passes it on, calls a precompile or gets a refund', async () => {
    expect((await run(READ_GAS, CAP)).need).toBeUndefined();
    expect((await run(CALL_IDENTITY, CAP)).need).toBeUndefined();
    expect((await run(CLEAR_SLOT, CAP)).need).toBeUndefined();
    expect(
      (await run(STORE_ONE, CAP, new EvmAddress(hexToBytes('0x0000000000000000000000000000000000000004')))).need,
    ).toBeUndefined();
    // Nothing is left over for the next run.
    expect((await run(STORE_ONE, CAP)).need).toBeDefined();
  });

  it('is not shown by a run on an EVM it does not watch', async () => {
    const other = await createVM({ common: evmCommon(0x737663) });
    expect(
      probeGasNeed(other.evm, CAP)({ gasRefund: 0n, totalGasSpent: 21_000n, execResult: {} } as never),
    ).toBeUndefined();
  });
});

describe('eth_estimateGas from one run', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ storage: 'memory' });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('answers the least limit, above what the call uses, for code whose last SSTORE needs the sentry', async () => {
    // Init code that stores 1 in slot 0, then 1 again (a warm no-op SSTORE last), and deploys nothing.
    const call = { from: TEST_ADDRESS_0, data: STORE_ONE_TWICE.slice(0, -2) };
    const estimate = BigInt((await rpc<string>(node.url, 'eth_estimateGas', [call])).body.result!);
    const at = (gas: bigint) => rpc(node.url, 'eth_call', [{ ...call, gas: `0x${gas.toString(16)}` }, 'latest']);
    expect((await at(estimate)).body.error).toBeUndefined();
    expect((await at(estimate - 1n)).body.error).toMatchObject({ code: -32000 });
  });
});
