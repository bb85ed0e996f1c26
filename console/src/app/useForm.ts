import type { ChangeEvent, FormEvent } from 'react';
import { useState } from 'react';
import { useAction } from './useLoad.ts';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * A form of text values that one action sends. The values are named as the API names its fields, so
 * `field(name)` binds a control to its value and to the API's message for that field, and a refusal
 * shows where the person typed. `submit` runs the action; `pending` and `error` are the action's.
 */
export function useForm<Values extends Record<string, string>>(
  initial: Values,
  send: (values: Values) => Promise<unknown>,
) {
  const [values, setValues] = useState(initial);
  const action = useAction(() => send(values));
  const set = (changes: Partial<Values>) => setValues((current) => ({ ...current, ...changes }));
  return {
    ...action,
    values,
    set,
    reset: () => setValues(initial),
    /** The names the form shows at their own fields; the error box lists any other. */
    fieldNames: Object.keys(initial),
    field: (name: keyof Values & string) => ({
      value: values[name],
      onChange: (event: ChangeEvent<Control>) => set({ [name]: event.target.value } as Partial<Values>),
      error: action.error?.fields[name],
    }),
    submit: (event: FormEvent) => {
      event.preventDefault();
      void action.run();
    },
  };
}
