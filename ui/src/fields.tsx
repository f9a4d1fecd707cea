import type { ComponentChildren } from 'preact';
import { formatAmountShort } from '../../sdk/index.js';
import { href } from './route.js';

/** A record's fields as a description list: label, value. */
export function Fields({ label, rows }: { label: string; rows: ReadonlyArray<readonly [string, ComponentChildren]> }) {
  return (
    <dl class="fields" aria-label={label}>
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A long hex value cut to its ends, the whole of it in the title. */
export const short = (hex: string): string => (hex.length > 20 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex);

export const Hash = ({ value }: { value: string }) => <span class="hash">{value}</span>;
export const Time = ({ ms }: { ms: number }) => (
  <time dateTime={new Date(ms).toISOString()}>{new Date(ms).toLocaleString()}</time>
);

/** An address, cut short unless `full`, linked to its account page. */
export const AccountLink = ({ address, full }: { address: string; full?: boolean }) => (
  <a href={href.account(address)} class="hash" title={address}>
    {full ? address : short(address)}
  </a>
);

/** Base units of OMC or OGT as a plain decimal ("10", "0.5"). */
export const amount = (units: bigint | string): string => formatAmountShort(BigInt(units));
