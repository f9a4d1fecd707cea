import type { ComponentChildren } from 'preact';

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

export const Hash = ({ value }: { value: string }) => <span class="hash">{value}</span>;
export const Time = ({ ms }: { ms: number }) => <time dateTime={new Date(ms).toISOString()}>{new Date(ms).toLocaleString()}</time>;
