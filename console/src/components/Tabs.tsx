import { type KeyboardEvent, type ReactNode, useId, useRef } from 'react';

export type Tab = { id: string; label: string };

/**
 * Tabs as the ARIA pattern has them: one tab stop, arrow keys (and Home/End) move between tabs, the
 * panel is labelled by its tab.
 */
export function Tabs(props: {
  tabs: Tab[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
  children: ReactNode;
}) {
  const base = useId();
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const index = Math.max(
    0,
    props.tabs.findIndex((t) => t.id === props.selected),
  );
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: props.tabs.length - 1,
    };
    const to = moves[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const tab = props.tabs[(to + props.tabs.length) % props.tabs.length];
    if (!tab) return;
    props.onSelect(tab.id);
    refs.current[tab.id]?.focus();
  }
  return (
    <div className="tabs">
      <div role="tablist" aria-label={props.label} onKeyDown={onKeyDown} className="tablist">
        {props.tabs.map((tab) => {
          const selected = tab.id === props.selected;
          return (
            <button
              key={tab.id}
              ref={(node) => {
                refs.current[tab.id] = node;
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${tab.id}`}
              aria-selected={selected}
              aria-controls={`${base}-panel`}
              tabIndex={selected ? 0 : -1}
              onClick={() => props.onSelect(tab.id)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-tab-${props.selected}`} className="tabpanel">
        {props.children}
      </div>
    </div>
  );
}
