import type { ReactNode } from 'react';

export type Column<Row> = {
  header: string;
  cell: (row: Row) => ReactNode;
  /** This column names the row for screen readers (a row header instead of a plain cell). */
  rowHeader?: boolean;
};

type DataTableProps<Row> = {
  /** Names the table; read by screen readers only unless `showCaption`, as the section's heading names it. */
  caption?: string;
  showCaption?: boolean;
  /** The id of the heading that describes the table, when there is no caption. */
  describedBy?: string;
  columns: ReadonlyArray<Column<Row>>;
  /** The records; while they are loading (undefined), nothing is shown. */
  rows: readonly Row[] | undefined;
  /** Shown instead of the table when there are no records (without it, an empty table is shown). */
  empty?: ReactNode;
  rowKey: (row: Row) => string;
  /** Marks each row for the browser tests that count rows as they arrive. */
  rowTestId?: string;
};

/**
 * Records as a table, one row each, scrolling sideways on a narrow screen rather than squeezing its
 * columns, or what says there are none. Every table in the console is one of these, so headers are always scoped for screen readers.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { caption, showCaption, describedBy, columns, rows, rowKey, rowTestId, empty } = props;
  if (!rows) return null;
  if (rows.length === 0 && empty !== undefined) return empty;
  return (
    <div className="table-wrap">
      <table aria-describedby={describedBy}>
        {caption ? <caption className={showCaption ? undefined : 'visually-hidden'}>{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} data-testid={rowTestId}>
              {columns.map((column) =>
                column.rowHeader ? (
                  <th scope="row" key={column.header}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header}>{column.cell(row)}</td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
