import { api, type ToolPolicyEntry, type ToolRule } from '../api/client.ts';
import { useAction } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Options, SelectField } from '../components/SelectField.tsx';
import { type InstallationSectionProps, useInstallationSection } from './useInstallationSection.ts';

const confirmationOptions = [
  { value: 'default', label: 'As its annotations say' },
  { value: 'always', label: 'Always ask' },
  { value: 'never', label: 'Never ask' },
];

function confirmationChoice(rule: ToolRule | null): string {
  if (!rule || rule.needs_confirmation === null) return 'default';
  return rule.needs_confirmation ? 'always' : 'never';
}

function whereFrom(tool: ToolPolicyEntry): string {
  if (tool.installation_rule) return 'this installation';
  if (tool.team_rule) return 'the team, for every installation of this server';
  return 'defaults';
}

/**
 * The installation's tools and which of them run: each can be turned off (clients no longer find or
 * run it) or made to ask the person behind the client before it runs. Team admins change them; every
 * member sees them. A rule set here applies to this installation, over any the team set for the server.
 */
export function ToolPolicySection(props: InstallationSectionProps) {
  const { teamId, installationId } = props;
  const { loaded: policy, canManage } = useInstallationSection(props, api.installations.toolPolicy);
  const update = useAction(async (changes: Parameters<typeof api.installations.updateToolPolicy>[2]) => {
    const updated = await api.installations.updateToolPolicy(teamId, installationId, changes);
    policy.set(() => updated);
  });
  const setRule = (tool: ToolPolicyEntry, change: Partial<ToolRule>) => {
    const base = tool.installation_rule ?? tool.team_rule ?? { enabled: true, needs_confirmation: null };
    void update.run({ tools: [{ tool_name: tool.tool_name, rule: { ...base, ...change } }] });
  };
  const p = policy.data;
  return (
    <section aria-labelledby="tools" className="card">
      <h2 id="tools">Tools</h2>
      <p className="muted">
        A tool turned off is not offered to clients and is refused if called. A tool that asks is run only after the
        person behind the client confirms; tools their server marks destructive ask unless set to never ask.
      </p>
      <ErrorMessage error={policy.error} />
      {p ? (
        <>
          <SelectField
            label="When a client cannot ask its user to confirm"
            value={p.without_elicitation}
            disabled={!canManage || update.pending}
            onChange={(e) => void update.run({ without_elicitation: e.target.value as 'refuse' | 'run' })}
            options={[
              { value: 'refuse', label: 'Refuse the call, saying why' },
              { value: 'run', label: 'Run it unconfirmed' },
            ]}
          />
          <DataTable
            describedBy="tools"
            rows={p.tools}
            empty={<p className="muted">The server has not listed its tools yet.</p>}
            rowKey={(t) => t.tool_name}
            rowTestId="tool-row"
            columns={[
              {
                header: 'Tool',
                cell: (t) => (
                  <>
                    <code>{t.tool_name}</code>
                    {t.destructive ? <span className="badge"> destructive</span> : null}
                    {!t.listed ? <span className="muted"> (not listed by the server now)</span> : null}
                    {t.description ? <div className="muted">{t.description}</div> : null}
                  </>
                ),
              },
              {
                header: 'Enabled',
                cell: (t) => (
                  <input
                    type="checkbox"
                    aria-label={`${t.tool_name} enabled`}
                    checked={t.enabled}
                    disabled={!canManage || update.pending}
                    onChange={(e) => setRule(t, { enabled: e.target.checked })}
                  />
                ),
              },
              {
                header: 'Confirmation',
                cell: (t) => (
                  <>
                    <select
                      aria-label={`${t.tool_name} confirmation`}
                      value={confirmationChoice(t.installation_rule ?? t.team_rule)}
                      disabled={!canManage || update.pending}
                      onChange={(e) =>
                        setRule(t, {
                          needs_confirmation: e.target.value === 'default' ? null : e.target.value === 'always',
                        })
                      }
                    >
                      <Options options={confirmationOptions} />
                    </select>{' '}
                    <span className="muted">{t.needs_confirmation ? 'asks' : 'does not ask'}</span>
                  </>
                ),
              },
              {
                header: 'Rule from',
                cell: (t) => (
                  <>
                    {whereFrom(t)}
                    {canManage && t.installation_rule ? (
                      <>
                        {' '}
                        <button
                          type="button"
                          disabled={update.pending}
                          onClick={() => void update.run({ tools: [{ tool_name: t.tool_name, rule: null }] })}
                        >
                          Reset<span className="visually-hidden"> {t.tool_name}</span>
                        </button>
                      </>
                    ) : null}
                  </>
                ),
              },
            ]}
          />
        </>
      ) : null}
      <ErrorMessage error={update.error} />
    </section>
  );
}
