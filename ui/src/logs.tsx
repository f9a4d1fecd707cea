import type { Receipt } from '../../sdk/index.js';
import { Hash } from './fields.js';
import { href } from './route.js';
import { decodedText, type Decoded } from './abis.js';

type EvmLog = NonNullable<Receipt['logs']>[number];

/** Events every explorer knows by their topic (ERC-20 and ERC-721 share these signatures). */
const KNOWN: Record<string, { name: string; fields: readonly string[] }> = {
  '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef': {
    name: 'Transfer',
    fields: ['from', 'to', 'value'],
  },
  '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925': {
    name: 'Approval',
    fields: ['owner', 'spender', 'value'],
  },
};

const account = (topic: string): string => `svc1${topic.slice(-40)}`;

/** A log's event decoded when it is a standard one: two indexed accounts and an amount (in data, or a token id as a third topic). */
function decoded(log: EvmLog): { name: string; args: [string, string, string] } | undefined {
  const known = KNOWN[log.topics[0] ?? ''];
  if (!known || log.topics.length < 3) return undefined;
  const amount = log.topics.length === 4 ? log.topics[3]! : log.data.length === 66 ? log.data : undefined;
  if (amount === undefined) return undefined;
  return { name: known.name, args: [account(log.topics[1]!), account(log.topics[2]!), BigInt(amount).toString()] };
}

/**
 * A transaction's EVM logs, in order: decoded with the contract's ABI when the node keeps one
 * (`decoded`, by position), else a standard event decoded, any other with its topics and data.
 */
export function Logs({
  logs,
  decoded: withAbi = [],
}: {
  logs: readonly EvmLog[];
  decoded?: readonly (Decoded | undefined)[];
}) {
  if (logs.length === 0) return <p>No logs.</p>;
  return (
    <ol class="logs" data-testid="logs">
      {logs.map((log, i) => {
        const event = decoded(log);
        const fromAbi = withAbi[i];
        return (
          <li key={i}>
            <a href={href.account(log.address)}>
              <Hash value={log.address} />
            </a>{' '}
            {fromAbi ? (
              <code data-testid="abi-decoded-log">{decodedText(fromAbi)}</code>
            ) : event ? (
              <span data-testid="decoded-log">
                <strong>{event.name}</strong>(
                <a href={href.account(event.args[0])}>
                  <Hash value={event.args[0]} />
                </a>
                ,{' '}
                <a href={href.account(event.args[1])}>
                  <Hash value={event.args[1]} />
                </a>
                , {event.args[2]})
              </span>
            ) : (
              <span>
                topics {log.topics.join(' ')}; data {log.data}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
