import { useState } from 'react';
import { api, type SettingView } from '../api/client.ts';
import { navigate, queryParam, useLocation } from '../app/router.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { Tabs } from '../components/Tabs.tsx';

/**
 * Global settings: one tab per setting group, in the groups' sort order. Each setting saves on its own,
 * so one refused value never loses the others; the refusal shows at its field. Encrypted values are
 * write-only: the API never returns them, the page only says whether one is set.
 */
export function SettingsPage() {
  const location = useLocation();
  const loaded = useLoad(async () => {
    const [groups, settings] = await Promise.all([api.settings.groups(), api.settings.list()]);
    return {
      groups: [...groups].sort((a, b) => a.sort_order - b.sort_order || a.name.localeCompare(b.name)),
      settings,
    };
  }, []);
  const groups = loaded.data?.groups ?? [];
  const selected = queryParam(location, 'group') ?? groups[0]?.id ?? '';
  const group = groups.find((g) => g.id === selected) ?? groups[0];
  const settings = (loaded.data?.settings ?? []).filter((s) => s.group_id === group?.id);

  function replaceSetting(updated: SettingView) {
    loaded.set(
      (data) => data && { ...data, settings: data.settings.map((s) => (s.key === updated.key ? updated : s)) },
    );
  }

  return (
    <Page title="Settings">
      <ErrorMessage error={loaded.error} />
      {loaded.loading && !loaded.data ? <p role="status">Loading settings…</p> : null}
      {group ? (
        <Tabs
          label="Setting groups"
          tabs={groups.map((g) => ({ id: g.id, label: g.name }))}
          selected={group.id}
          onSelect={(id) => navigate(`/settings?group=${encodeURIComponent(id)}`, { replace: true })}
        >
          {group.description ? <p className="muted">{group.description}</p> : null}
          {settings.length === 0 ? <p>This group has no settings.</p> : null}
          <div className="settings-list">
            {settings.map((setting) => (
              <SettingForm key={setting.key} setting={setting} onSaved={replaceSetting} />
            ))}
          </div>
        </Tabs>
      ) : null}
    </Page>
  );
}

function SettingForm({ setting, onSaved }: { setting: SettingView; onSaved: (s: SettingView) => void }) {
  const type = setting.definition?.type ?? 'string';
  const initial = setting.is_encrypted ? '' : (setting.value ?? '');
  const [value, setValue] = useState(initial);
  const [saved, setSaved] = useState(false);
  const save = useAction(async (next: string) => {
    setSaved(false);
    onSaved(await api.settings.update(setting.key, next));
    setSaved(true);
    if (setting.is_encrypted) setValue('');
    return true;
  });
  const { pending, error } = save;
  const label = setting.definition?.name ?? setting.key;
  const changed = setting.is_encrypted ? value !== '' : value !== initial;

  // A choice is shown as made at once; a refused save puts it back (the stored value is the truth).
  async function choose(next: string) {
    setValue(next);
    if (!(await save.run(next))) setValue(initial);
  }

  const hint = (
    <>
      <code>{setting.key}</code>
      {setting.description ? ` · ${setting.description}` : ''}
      {setting.definition?.required ? ' · required' : ''}
      {setting.is_encrypted ? ` · encrypted, write-only: ${setting.has_value ? 'a value is set' : 'no value set'}` : ''}
    </>
  );
  const fieldError = error?.fields.value;
  const formError = fieldError ? null : <ErrorMessage error={error} />;
  const savedNote = (
    <span className="saved" aria-live="polite">
      {saved ? 'Saved' : ''}
    </span>
  );

  const options = setting.definition?.options;
  const choice =
    type === 'boolean' && !setting.is_encrypted ? (
      <Field
        type="checkbox"
        label={label}
        hint={hint}
        checked={['true', '1', 'yes', 'on', 'enabled'].includes(value.trim().toLowerCase())}
        disabled={pending}
        onChange={(e) => void choose(e.target.checked ? 'true' : 'false')}
        error={fieldError}
      />
    ) : options && !setting.is_encrypted ? (
      // An enumeration: a choice among its options.
      <SelectField
        label={label}
        hint={hint}
        value={value}
        disabled={pending}
        options={[
          ...(options.includes(value) ? [] : [{ value, label: value === '' ? '(not set)' : value }]),
          ...options.map((o) => ({ value: o, label: o })),
        ]}
        onChange={(e) => void choose(e.target.value)}
        error={fieldError}
      />
    ) : null;
  if (choice) {
    return (
      <form className="setting" onSubmit={(e) => e.preventDefault()}>
        {choice}
        {formError}
        {savedNote}
      </form>
    );
  }

  // The input type follows the format, so the browser's keyboard fits; the server checks the value.
  const format = setting.definition?.format;
  const inputType = setting.is_encrypted
    ? 'password'
    : format === 'url'
      ? 'url'
      : format === 'email'
        ? 'email'
        : 'text';
  return (
    <form
      className="setting"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run(value);
      }}
      noValidate
    >
      <Field
        label={label}
        hint={hint}
        type={inputType}
        inputMode={type === 'number' ? 'numeric' : undefined}
        autoComplete={setting.is_encrypted ? 'new-password' : 'off'}
        placeholder={
          setting.is_encrypted ? (setting.has_value ? 'Type a new value to replace it' : 'Not set') : undefined
        }
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          setSaved(false);
        }}
        error={fieldError}
      />
      <div className="setting-actions">
        <button type="submit" disabled={pending || !changed}>
          {pending ? 'Saving…' : 'Save'}
          <span className="visually-hidden"> {label}</span>
        </button>
        {savedNote}
      </div>
      {formError}
    </form>
  );
}
