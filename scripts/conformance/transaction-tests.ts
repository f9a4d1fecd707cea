import { fromHex } from '../../sdk/bytes.js';
import { NEWEST_RULES_VERSION } from '../../chain/rules-version.js';
import { accountAddress } from '../../sdk/address.js';
import { NodePath } from './node-path.js';
import { STATE_FORK } from './state-tests.js';
import type { VectorFile } from './vectors.js';

/** One transaction vector and what Cancun says of it: its sender and hash, or an exception. */
export interface TransactionCase {
  /** `<folder>/<file>:<test>`. */
  readonly id: string;
  readonly txbytes: string;
  readonly expected: { readonly exception?: string; readonly sender?: string; readonly hash?: string };
  /** The fork the expectation is for: Cancun, or the newest the vector was filled for. */
  readonly fork: string;
}

/** Forks oldest first: a vector filled only up to an older fork is judged by the newest it has. */
const FORKS = [
  'Frontier',
  'Homestead',
  'EIP150',
  'EIP158',
  'Byzantium',
  'Constantinople',
  'ConstantinopleFix',
  'Istanbul',
  'Berlin',
  'London',
  'Paris',
  'Shanghai',
  STATE_FORK,
];

/** Every vector, with Cancun's expectation (61 of the 210 stop at an older fork: their newest). */
export function transactionCases(files: readonly VectorFile[]): TransactionCase[] {
  const cases: TransactionCase[] = [];
  for (const { path, json } of files) {
    const relative = path.replace(/^TransactionTests\//, '').replace(/\.json$/, '');
    for (const [name, value] of Object.entries(json)) {
      const test = value as { txbytes: string; result: Record<string, TransactionCase['expected']> };
      const fork = FORKS.findLast((candidate) => test.result[candidate] !== undefined);
      if (!fork) throw new Error(`transaction vector ${relative}:${name} has no result for a known fork`);
      cases.push({ id: `${relative}:${name}`, txbytes: test.txbytes, expected: test.result[fork]!, fork });
    }
  }
  return cases;
}

/**
 * passed: a valid vector gave its sender and hash, an invalid one was refused; refused_on_purpose: a
 * valid vector of a kind the chain does not take (legacy without EIP-155, blob and set-code types),
 * refused; failed otherwise.
 */
export type TransactionOutcome = { readonly id: string } & (
  | { readonly status: 'passed' | 'refused_on_purpose'; readonly reason?: string }
  | { readonly status: 'failed'; readonly reason: string }
);

/** What the chain refuses by design though Ethereum takes it, by the refusal's words. */
const ON_PURPOSE = [/only replay-protected \(EIP-155\)/, /transaction type [34] is not supported/];

/**
 * Runs one vector through what `eth_sendRawTransaction` does with bytes before the mempool looks at
 * the sender's account: the envelope decoder (shape, canonical bytes, chain id, signature, sender),
 * the EVM kind's payload and signer checks and its admission (intrinsic gas, fee fields, init code).
 * The vectors have no state or block: the mempool's nonce and funds checks are not theirs to judge,
 * and the path's block gas limit and base fee are set so as to refuse nothing on their own.
 */
export function runTransactionCase(testCase: TransactionCase, path: NodePath): TransactionOutcome {
  const refusal = refusedBy(fromHex(testCase.txbytes), path);
  const { id, expected } = testCase;
  if (expected.exception)
    return refusal.refused
      ? { id, status: 'passed', reason: refusal.reason }
      : { id, status: 'failed', reason: `accepted a transaction Ethereum refuses (${expected.exception})` };
  if (refusal.refused)
    return ON_PURPOSE.some((words) => words.test(refusal.reason))
      ? { id, status: 'refused_on_purpose', reason: refusal.reason }
      : { id, status: 'failed', reason: `refused: ${refusal.reason}` };
  if (refusal.sender !== accountAddress(`0x${expected.sender!.slice(2).toLowerCase()}`))
    return { id, status: 'failed', reason: `sender ${refusal.sender}, expected ${expected.sender}` };
  if (refusal.hash !== expected.hash)
    return { id, status: 'failed', reason: `hash ${refusal.hash}, expected ${expected.hash}` };
  return { id, status: 'passed' };
}

function refusedBy(
  raw: Uint8Array,
  path: NodePath,
): { refused: true; reason: string } | { refused: false; sender: string; hash: string } {
  const decoded = path.decode(raw);
  if (!('tx' in decoded)) return { refused: true, reason: NodePath.refusal(decoded)! };
  const checked = path.kinds.check(decoded.tx, NEWEST_RULES_VERSION);
  if ('reason' in checked) return { refused: true, reason: checked.reason };
  try {
    checked.kind.spec.admit?.(decoded.tx.payload, checked.kind.service());
  } catch (error) {
    return { refused: true, reason: (error as Error).message };
  }
  return { refused: false, sender: decoded.tx.from, hash: decoded.tx.hash };
}
