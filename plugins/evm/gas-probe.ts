import type { RunTxResult } from '@ethereumjs/vm';

/*
 * What one run shows of the least gas limit a transaction needs. A run whose code never reads the gas
 * left (GAS), never passes gas on (the CALL and CREATE families, whose 63/64 rule depends on it) and
 * calls no precompile goes exactly the same way with any limit that covers what it consumed: every
 * opcode costs the same and nothing it computes depends on the limit. Its least limit is then what it
 * used, or more where an SSTORE found less than the EIP-2200 sentry would leave it (SSTORE needs more
 * than 2,300 gas left, whatever it costs). An estimate needs no second run for such a call: most
 * token transfers, approvals and plain sends are. A refund makes the run need more than it is charged;
 * such a run, like one that read the gas, shows nothing, and the estimate searches as before.
 */

/** The opcodes whose outcome depends on the gas left: GAS, CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL, and EOF's EXTCALL family. */
const GAS_READERS = [0x5a, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xf8, 0xf9, 0xfa, 0xfb];
const SSTORE = 0x55;
/** EIP-2200: an SSTORE with this much gas left or less fails. */
const SSTORE_SENTRY = 2300n;

interface RunStateLike {
  readonly interpreter: { readonly _evm: object; getGasLeft(): bigint };
}
type Handler = (runState: RunStateLike, ...rest: unknown[]) => unknown;
interface OpcodeEntry {
  opHandler?: Handler;
  gasHandler?: Handler;
}
interface EvmLike {
  readonly _opcodeMap: OpcodeEntry[];
  runPrecompile(...args: unknown[]): unknown;
}

interface Probe {
  readGas: boolean;
  /** The least gas left at an SSTORE's gas check, by the run's gas limit. */
  leastLeftAtSstore: bigint | undefined;
}

const probes = new WeakMap<object, Probe>();
const watched = new WeakSet<object>();

/** Makes `evm`'s gas-reading opcodes, SSTORE's gas check and its precompiles report to the probe of the run under way, if any. */
export function watchGasReads(evm: object): void {
  if (watched.has(evm)) return;
  watched.add(evm);
  const target = evm as EvmLike;
  const map = target._opcodeMap;
  const seen = new Set<OpcodeEntry>();
  for (const op of GAS_READERS) {
    const entry = map[op];
    // Opcodes a fork lacks share the INVALID entry: left as they are.
    if (!entry?.opHandler || entry === map[0xfe] || seen.has(entry)) continue;
    seen.add(entry);
    const handler = entry.opHandler;
    entry.opHandler = (runState, ...rest) => {
      const probe = probes.get(runState.interpreter._evm);
      if (probe) probe.readGas = true;
      return handler(runState, ...rest);
    };
  }
  const sstore = map[SSTORE];
  const check = sstore?.gasHandler;
  if (sstore && check) {
    sstore.gasHandler = (runState, ...rest) => {
      const probe = probes.get(runState.interpreter._evm);
      if (probe) {
        const left = runState.interpreter.getGasLeft();
        if (probe.leastLeftAtSstore === undefined || left < probe.leastLeftAtSstore) probe.leastLeftAtSstore = left;
      }
      return check(runState, ...rest);
    };
  }
  const runPrecompile = target.runPrecompile;
  target.runPrecompile = function (this: EvmLike, ...args: unknown[]) {
    const probe = probes.get(evm);
    if (probe) probe.readGas = true;
    return runPrecompile.apply(this, args);
  };
}

/**
 * Starts a probe on `evm` (watched by watchGasReads) for one run with gas limit `gasLimit`; what it
 * returns ends it and gives the least limit the run shows, or undefined when it shows none.
 */
export function probeGasNeed(evm: object, gasLimit: bigint): (result: RunTxResult | undefined) => bigint | undefined {
  const probe: Probe = { readGas: !watched.has(evm), leastLeftAtSstore: undefined };
  probes.set(evm, probe);
  // Called however the run ends (undefined: it threw), so no probe outlives its run.
  return (result) => {
    probes.delete(evm);
    if (!result || probe.readGas || result.gasRefund > 0n || result.execResult.exceptionError) return undefined;
    const used = result.totalGasSpent;
    if (probe.leastLeftAtSstore === undefined) return used;
    // At that SSTORE a limit of L leaves (left − (gasLimit − L)); it must be above the sentry.
    const sentry = gasLimit - probe.leastLeftAtSstore + SSTORE_SENTRY + 1n;
    return sentry > used ? sentry : used;
  };
}
