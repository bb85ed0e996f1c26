import { type ReactNode, type SelectHTMLAttributes, useId } from 'react';

type SelectFieldProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: ReactNode;
  error?: string | undefined;
  options: Array<{ value: string; label: string }>;
};

export function SelectField({ label, error, options, id, ...select }: SelectFieldProps) {
  const generated = useId();
  const selectId = id ?? generated;
  return (
    <div className="field">
      <label htmlFor={selectId}>{label}</label>
      <select
        id={selectId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${selectId}-error` : undefined}
        {...select}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? (
        <p className="field-error" id={`${selectId}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
