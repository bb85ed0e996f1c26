import { type ReactNode, useEffect } from 'react';

/** A page's heading (also the document title) and its content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Orbital`;
  }, [title]);
  return (
    <>
      <div className="page-head">
        <h1>{title}</h1>
        {actions ? <div className="page-actions">{actions}</div> : null}
      </div>
      {children}
    </>
  );
}
