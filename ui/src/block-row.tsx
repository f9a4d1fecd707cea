import { href } from './route.js';
import { short } from './fields.js';

export interface BlockSummary {
  readonly height: number;
  readonly hash: string;
  readonly timestamp: number;
  readonly proposer: string;
  readonly transactions: number;
}

export function BlockRow({ block }: { block: BlockSummary }) {
  return (
    <tr>
      <td>
        <a href={href.block(block.height)}>{block.height}</a>
      </td>
      <td class="hash" title={block.hash}>
        {short(block.hash)}
      </td>
      <td class="hash wide" title={block.proposer}>
        {short(block.proposer)}
      </td>
      <td>{block.transactions}</td>
      <td>
        <time dateTime={new Date(block.timestamp).toISOString()}>{new Date(block.timestamp).toLocaleTimeString()}</time>
      </td>
    </tr>
  );
}
