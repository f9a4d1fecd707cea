import { encodeFunctionResult, parseAbi } from 'viem';
import { fromHex } from '../../sdk/bytes.js';
import { decodePrecompileCall, type Precompile, type PrecompileFactory } from './precompiles.js';
import { addressOfHex } from '../../sdk/address.js';

/** The OGT view's address. */
export const OGT_PRECOMPILE_ADDRESS = '0x0000000000000000000000000000000000000802';

// The precompile's functions, written once: its ABI, its documented table and (checked by a test)
// contracts/IOGT.sol all say the same.
const OGT_BALANCE_OF = 'function ogtBalanceOf(address account) view returns (uint256 balance, uint256 bonded)';
const BOND_OF = 'function bondOf(address account, string purpose) view returns (uint256 bonded)';

export const OGT_ABI = parseAbi([OGT_BALANCE_OF, BOND_OF]);

/** What a read costs: about a cold account read (EIP-2929). */
export const OGT_GAS = 2_600n;

/**
 * OGT for contracts, which see only OMC as the EVM's balance: an account's liquid OGT and what it has
 * bonded (staked as a validator, bonded as a compute or storage provider), to gate on stake or bonds.
 */
export function ogtPrecompile<Svc>(precompile: PrecompileFactory<Svc>): Precompile {
  return precompile({
    address: OGT_PRECOMPILE_ADDRESS,
    name: 'OGT',
    summary:
      "An account's OGT, which the EVM's BALANCE does not show: liquid, and bonded (validator stake, compute and storage bonds)",
    revertGas: OGT_GAS,
    functions: [
      {
        signature: OGT_BALANCE_OF,
        gas: `${OGT_GAS}`,
        summary: 'liquid OGT, and OGT bonded for every purpose together (base units)',
      },
      {
        signature: BOND_OF,
        gas: `${OGT_GAS}`,
        summary: 'OGT bonded for one purpose: "stake", "compute" or "storage"',
      },
    ],
    run(call) {
      const decoded = decodePrecompileCall(OGT_ABI, call.input, OGT_GAS);
      const account = call.ctx.account(addressOfHex(decoded.args[0]));
      const output =
        decoded.functionName === 'ogtBalanceOf'
          ? encodeFunctionResult({
              abi: OGT_ABI,
              functionName: 'ogtBalanceOf',
              result: [account.ogt, Object.values(account.bonded).reduce((sum, amount) => sum + amount, 0n)],
            })
          : encodeFunctionResult({
              abi: OGT_ABI,
              functionName: 'bondOf',
              result: account.bonded[decoded.args[1]] ?? 0n,
            });
      return { gas: OGT_GAS, output: fromHex(output) };
    },
  });
}
