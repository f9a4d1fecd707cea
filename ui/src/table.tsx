import type { ComponentChildren } from 'preact';

/** A column: its heading, and whether it is hidden on narrow screens (`wide`). */
export type Column = string | readonly [string, 'wide'];

/** A table with column headings (scoped for screen readers) and the rows given as children. */
export function Table({
  columns,
  testId,
  children,
}: {
  columns: readonly Column[];
  testId: string;
  children: ComponentChildren;
}) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((column) =>
            typeof column === 'string' ? (
              <th key={column} scope="col">
                {column}
              </th>
            ) : (
              <th key={column[0]} scope="col" class="wide">
                {column[0]}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody data-testid={testId}>{children}</tbody>
    </table>
  );
}
