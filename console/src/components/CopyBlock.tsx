import { useId, useState } from 'react';

/** Text to copy (a command, a configuration file) with a button that copies it and says so. */
export function CopyBlock({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const id = useId();
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      // Clipboard access needs a secure context and permission; selecting the text lets the person copy it.
      const selection = window.getSelection();
      const node = document.getElementById(id);
      if (selection && node) selection.selectAllChildren(node);
      setCopied('no');
    }
  }
  return (
    <section className="copy-block" aria-label={label}>
      <pre id={id}>
        <code>{text}</code>
      </pre>
      <button type="button" className="secondary" onClick={copy}>
        Copy<span className="visually-hidden"> {label}</span>
      </button>
      <span className="copy-status" aria-live="polite">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Selected: press Ctrl+C to copy' : ''}
      </span>
    </section>
  );
}
