import { http } from './node.js';
import { useLoad } from './load.js';
import { NotLoaded } from './not-loaded.js';
import { Fields, Hash, Time } from './fields.js';
import { href } from './route.js';

/** A block by height or hash: its header and its transactions. */
export function BlockPage({ id }: { id: string }) {
  const block = useLoad(`block ${id}`, () =>
    /^\d+$/.test(id) ? http.getBlockByNumber(Number(id)) : http.getBlockByHash(id),
  );
  if (block.state !== 'done') return <NotLoaded loaded={block} what={`block ${id}`} />;
  const b = block.value;
  return (
    <>
      <h2>Block {b.height}</h2>
      <Fields
        label={`Block ${b.height}`}
        rows={[
          ['Hash', <Hash value={b.hash} />],
          [
            'Parent',
            b.height > 0 ? (
              <a href={href.block(b.height - 1)}>
                <Hash value={b.parentHash} />
              </a>
            ) : (
              <Hash value={b.parentHash} />
            ),
          ],
          ['Time', <Time ms={b.timestamp} />],
          [
            'Proposer',
            <a href={href.account(b.proposer)}>
              <Hash value={b.proposer} />
            </a>,
          ],
          ['State root', <Hash value={b.stateRoot} />],
          [
            'Certificate of the parent',
            b.lastCommit ? `${b.lastCommit.signatures.length} precommit(s), round ${b.lastCommit.round}` : 'none',
          ],
        ]}
      />
      <h3>Transactions ({b.transactions.length})</h3>
      {b.transactions.length === 0 ? <p>None.</p> : <TxList hashes={b.transactions} testId="block-transactions" />}
      {b.systemTransactions && b.systemTransactions.length > 0 ? (
        <>
          <h3>System transactions ({b.systemTransactions.length})</h3>
          <p>Calls the chain made to contracts at the block's end (a compute job's callback), each with a receipt.</p>
          <TxList hashes={b.systemTransactions} testId="block-system-transactions" />
        </>
      ) : null}
    </>
  );
}

/** Transaction hashes, each linked to its page. */
function TxList({ hashes, testId }: { hashes: readonly string[]; testId: string }) {
  return (
    <ol class="list" data-testid={testId}>
      {hashes.map((hash) => (
        <li key={hash}>
          <a href={href.tx(hash)}>
            <Hash value={hash} />
          </a>
        </li>
      ))}
    </ol>
  );
}
