import type { EVMInterface, InterpreterStep } from '@ethereumjs/evm';
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util';
import { toHex } from '../../../sdk/bytes.js';
import type { AccessListEntry, EvmOutcome } from '../runner.js';
import type { Tracer } from './tracer.js';

const SLOAD = 0x54;
const SSTORE = 0x55;
const BALANCE = 0x31;
const EXTCODESIZE = 0x3b;
const EXTCODECOPY = 0x3c;
const EXTCODEHASH = 0x3f;
const CALL = 0xf1;
const CALLCODE = 0xf2;
const DELEGATECALL = 0xf4;
const STATICCALL = 0xfa;
const SELFDESTRUCT = 0xff;

const addressOf = (word: bigint): string => toHex(setLengthLeft(bigIntToBytes(word & ((1n << 160n) - 1n)), 20));
const slotOf = (word: bigint): string => toHex(setLengthLeft(bigIntToBytes(word), 32));

/**
 * geth's access-list tracer, for `eth_createAccessList`: every account and storage slot a run
 * touches (SLOAD, SSTORE, BALANCE, EXTCODE*, the CALL family, SELFDESTRUCT); an account touched
 * only by address is left out when it is the sender, the recipient, the contract a creation makes or
 * a precompile (warm from the start anyway), a contract whose slots the run touched never.
 */
export class AccessListTracer implements Tracer {
  private readonly touched = new Map<string, Set<string>>();

  /** Every account the run touched, with the slots of it (none excluded), in the order first touched. */
  get touchedAccounts(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.touched;
  }

  constructor(private readonly excluded: (address: string) => boolean) {}

  attach(evm: EVMInterface): () => void {
    const onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void): void => {
      const { stack } = step;
      const top = (n: number): bigint => stack[stack.length - 1 - n]!;
      const account = (address: string): Set<string> => {
        let slots = this.touched.get(address);
        if (!slots) this.touched.set(address, (slots = new Set()));
        return slots;
      };
      switch (step.opcode.code) {
        case SLOAD:
        case SSTORE:
          account(step.address.toString().toLowerCase()).add(slotOf(top(0)));
          break;
        case BALANCE:
        case EXTCODESIZE:
        case EXTCODECOPY:
        case EXTCODEHASH:
        case SELFDESTRUCT:
          account(addressOf(top(0)));
          break;
        case CALL:
        case CALLCODE:
        case DELEGATECALL:
        case STATICCALL:
          account(addressOf(top(1)));
          break;
      }
      resolve?.();
    };
    evm.events!.on('step', onStep);
    return () => evm.events!.off('step', onStep);
  }

  /** The access list of the run, accounts and slots in the order first touched. */
  get accessList(): AccessListEntry[] {
    return (
      [...this.touched]
        // As geth and Anvil: a slot read or written lists its contract, even the recipient.
        .filter(([address, slots]) => slots.size > 0 || !this.excluded(address))
        .map(([address, slots]) => ({ address, storageKeys: [...slots] }))
    );
  }

  result(_outcome: EvmOutcome): AccessListEntry[] {
    return this.accessList;
  }
}
