import { api, type PendingToolDefinition } from '../api/client.ts';
import { useAction } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { When } from '../components/When.tsx';
import { type InstallationSectionProps, useInstallationSection } from './useInstallationSection.ts';

function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The fields of a definition that differ from the approved one, in the order a reader checks them. */
function changedFields(p: PendingToolDefinition): string[] {
  if (!p.approved) return ['new tool'];
  const fields = ['description', 'input_schema', 'output_schema', 'annotations'] as const;
  return fields.filter((f) => pretty(p.definition[f]) !== pretty(p.approved?.[f]));
}

/**
 * Pinned tool definitions: the server's first listing was approved as it was; a tool it adds later, or
 * a definition it changes, is held back from clients until a team admin reads it here beside the
 * approved one and approves it. Team admins can also turn pinning off for the installation.
 */
export function PinnedDefinitionsSection(props: InstallationSectionProps) {
  const { teamId, installationId } = props;
  const { loaded: definitions, canManage } = useInstallationSection(props, api.installations.toolDefinitions);
  const approve = useAction(async (p: PendingToolDefinition) => {
    const updated = await api.installations.approveToolDefinition(
      teamId,
      installationId,
      p.tool_name,
      p.definition_hash,
    );
    definitions.set(() => updated);
  });
  const pinning = useAction(async (on: boolean) => {
    await api.installations.updateToolPolicy(teamId, installationId, { pin_definitions: on });
    definitions.reload();
  });
  const d = definitions.data;
  return (
    <section aria-labelledby="tool-definitions" className="card">
      <h2 id="tool-definitions">Tool definitions</h2>
      <ErrorMessage error={definitions.error} />
      {d ? (
        <>
          <Field
            type="checkbox"
            label="Hold back new tools and changed tool definitions until a team admin approves them"
            hint={`${d.approved_count} tool definitions approved. Off: clients get whatever the server lists.`}
            checked={d.pin_definitions}
            disabled={!canManage || pinning.pending}
            onChange={(e) => void pinning.run(e.target.checked)}
          />
          <ErrorMessage error={pinning.error} />
          {d.pending.length === 0 ? (
            <p className="muted">No tool is waiting for approval.</p>
          ) : (
            <ul className="plain">
              {d.pending.map((p) => (
                <li key={`${p.tool_name}-${p.definition_hash}`} data-testid="pending-definition">
                  <h3>
                    <code>{p.tool_name}</code>: {changedFields(p).join(', ')}
                  </h3>
                  <p className="muted">
                    Held back since <When at={p.first_seen_at} />
                  </p>
                  <div className="diff">
                    <figure>
                      <figcaption>Approved</figcaption>
                      <pre>{p.approved ? pretty(p.approved) : '(none: a new tool)'}</pre>
                    </figure>
                    <figure>
                      <figcaption>Listed now</figcaption>
                      <pre>{pretty(p.definition)}</pre>
                    </figure>
                  </div>
                  {canManage ? (
                    <button type="button" disabled={approve.pending} onClick={() => void approve.run(p)}>
                      Approve<span className="visually-hidden"> {p.tool_name}</span>
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
          <ErrorMessage error={approve.error} />
        </>
      ) : null}
    </section>
  );
}
