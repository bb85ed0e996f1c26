import type { SelectHTMLAttributes } from 'react';
import { LabelledControl, type LabelledControlProps } from './LabelledControl.tsx';

export type Option = { value: string; label: string };

/** The options of a select, its own or one that a table cell labels by itself. */
export function Options({ options }: { options: readonly Option[] }) {
  return options.map((o) => (
    <option key={o.value} value={o.value}>
      {o.label}
    </option>
  ));
}

type SelectFieldProps = LabelledControlProps &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> & { options: Option[] };

/** A labelled choice among options, with its hint and its error. */
export function SelectField(props: SelectFieldProps) {
  return (
    <LabelledControl
      field={props}
      render={({ options, ...select }) => (
        <select {...select}>
          <Options options={options} />
        </select>
      )}
    />
  );
}
