import { useState } from 'react';
import { useForm, type UseFormRegister } from 'react-hook-form';
import { useAuthSettings, useSaveAuthSettings, type AuthSettings, type SecretInfo, type Setting } from '../api/auth-config';
import { changedSettings, GROUPS, PROVIDERS, toField, type FieldValue } from '../lib/settings';
import { Button } from '@/components/ui/button';
import { Input, inputClass } from '@/components/ui/field';
import { ErrorNote, Loading } from '@/components/ui/states';

type Fields = Record<string, FieldValue>;

const shown = (s: Setting, v: Setting['value']) => (s.kind === 'bool' ? (v ? 'on' : 'off') : Array.isArray(v) ? v.join(', ') || '(none)' : String(v) || '(empty)');

function SettingRow({ setting, register, error, onReset, busy }: { setting: Setting; register: UseFormRegister<Fields>; error?: string; onReset: () => void; busy: boolean }) {
  const id = `setting-${setting.name}`;
  const hint = `${id}-hint`;
  const control =
    setting.kind === 'bool' ? (
      <input id={id} type="checkbox" className="h-4 w-4" aria-describedby={hint} {...register(setting.name)} />
    ) : setting.kind === 'list' ? (
      <textarea id={id} rows={2} className={`${inputClass} h-auto w-full py-1 font-mono`} aria-describedby={hint} aria-invalid={!!error} {...register(setting.name)} />
    ) : (
      <Input id={id} inputMode={setting.kind === 'int' ? 'numeric' : undefined} className={setting.kind === 'int' ? 'w-28' : ''} aria-describedby={hint} aria-invalid={!!error} {...register(setting.name)} />
    );
  return (
    <div className="grid grid-cols-1 items-start gap-x-3 gap-y-1 border-t border-slate-100 py-2 sm:grid-cols-[minmax(0,18rem)_minmax(0,1fr)_auto]">
      <label htmlFor={id} className="text-sm text-slate-800">
        {setting.label}
        <span className="block font-mono text-[11px] text-slate-600">{setting.name}</span>
      </label>
      <div className="flex flex-col gap-1">
        {control}
        <p id={hint} className="text-xs text-slate-600">
          {error ? <span className="text-red-700">{error}. </span> : null}
          Start-up value: {shown(setting, setting.default)}
          {setting.kind === 'list' ? ' — one per line' : ''}
        </p>
      </div>
      <div className="flex items-center gap-2">
        {setting.overridden ? (
          <>
            <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">changed</span>
            <Button variant="ghost" disabled={busy} onClick={onReset} aria-label={`Reset ${setting.name} to its start-up value`}>
              Reset
            </Button>
          </>
        ) : null}
      </div>
    </div>
  );
}

function SecretRow({ secret, value, onChange, onRemove, busy }: { secret: SecretInfo; value: string; onChange: (v: string) => void; onRemove: () => void; busy: boolean }) {
  const id = `secret-${secret.name}`;
  return (
    <div className="grid grid-cols-1 items-start gap-x-3 gap-y-1 border-t border-slate-100 py-2 sm:grid-cols-[minmax(0,18rem)_minmax(0,1fr)_auto]">
      <label htmlFor={id} className="text-sm text-slate-800">
        {secret.label}
        <span className="block font-mono text-[11px] text-slate-600">{secret.name}</span>
      </label>
      <div className="flex flex-col gap-1">
        <Input id={id} type="password" autoComplete="off" placeholder={secret.set ? '•••••• (set; type to replace)' : 'not set'} value={value} onChange={(e) => onChange(e.target.value)} />
        <p className="text-xs text-slate-600">Write-only: stored encrypted, never shown again.</p>
      </div>
      <div>
        {secret.overridden && (
          <Button variant="ghost" disabled={busy} onClick={onRemove} aria-label={`Remove the secret ${secret.name}`}>
            Remove
          </Button>
        )}
      </div>
    </div>
  );
}

function SettingsForm({ data }: { data: AuthSettings }) {
  const save = useSaveAuthSettings();
  const defaults = Object.fromEntries(data.settings.map((s) => [s.name, toField(s, s.value)]));
  const form = useForm<Fields>({ defaultValues: defaults });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [note, setNote] = useState<string | null>(null);
  const groups = [...GROUPS, ...Object.entries(PROVIDERS).map(([id, name]) => ({ id, title: `${name} sign-in` }))];

  const submit = form.handleSubmit((fields) => {
    const { changes, errors } = changedSettings(data.settings, fields);
    setErrors(errors);
    if (Object.keys(errors).length) return;
    const newSecrets = Object.fromEntries(Object.entries(typed).filter(([, v]) => v !== ''));
    if (!Object.keys(changes).length && !Object.keys(newSecrets).length) {
      setNote('Nothing changed.');
      return;
    }
    save.mutate(
      { settings: changes, secrets: newSecrets },
      {
        onSuccess: (next) => {
          setTyped({});
          form.reset(Object.fromEntries(next.settings.map((s) => [s.name, toField(s, s.value)])));
          setNote(`Saved: ${[...Object.keys(changes), ...Object.keys(newSecrets)].join(', ')}. In force now.`);
        },
      },
    );
  });
  const reset = (change: { settings?: Record<string, null>; secrets?: Record<string, null> }, name: string) =>
    save.mutate(change, {
      onSuccess: (next) => {
        form.reset(Object.fromEntries(next.settings.map((s) => [s.name, toField(s, s.value)])));
        setNote(`${name} is back to its start-up value.`);
      },
    });

  return (
    <form noValidate onSubmit={submit} className="flex min-h-0 flex-1 flex-col">
      <div className="min-h-0 flex-1 overflow-auto px-3">
        {groups.map((g) => {
          const settings = data.settings.filter((s) => s.group === g.id);
          const secrets = data.secrets.filter((s) => s.group === g.id);
          if (!settings.length) return null;
          return (
            <section key={g.id} aria-labelledby={`group-${g.id}`} className="py-2">
              <h2 id={`group-${g.id}`} className="text-sm font-semibold text-slate-800">
                {g.title}
              </h2>
              {settings.map((s) => (
                <SettingRow key={s.name} setting={s} register={form.register} error={errors[s.name]} busy={save.isPending} onReset={() => reset({ settings: { [s.name]: null } }, s.name)} />
              ))}
              {secrets.map((secret) => (
                <SecretRow
                  key={secret.name}
                  secret={secret}
                  value={typed[secret.name] ?? ''}
                  busy={save.isPending}
                  onChange={(v) => setTyped((all) => ({ ...all, [secret.name]: v }))}
                  onRemove={() => reset({ secrets: { [secret.name]: null } }, secret.name)}
                />
              ))}
            </section>
          );
        })}
      </div>
      <footer className="flex flex-wrap items-center gap-3 border-t border-slate-200 bg-slate-50 px-3 py-2">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save changes'}
        </Button>
        <Button variant="ghost" onClick={() => { form.reset(defaults); setTyped({}); setErrors({}); setNote(null); }}>
          Discard
        </Button>
        <p role="status" className="text-sm text-slate-700">
          {note}
        </p>
        {save.error && <ErrorNote error={save.error} />}
      </footer>
    </form>
  );
}

/** Auth → Settings: what sign-up and sign-in allow, SMTP, hooks and WebAuthn, changed without a restart. */
export function AuthSettingsScreen() {
  const settings = useAuthSettings();
  return (
    <div className="flex h-full min-h-0 flex-col bg-white">
      <header className="border-b border-slate-200 px-3 py-2">
        <h1 className="text-base font-semibold">Auth settings</h1>
        <p className="text-sm text-slate-700">Changes apply at once on every server instance. The start-up value comes from the environment or config.toml; Reset goes back to it.</p>
      </header>
      {settings.isPending ? <Loading /> : settings.error ? <ErrorNote error={settings.error} /> : <SettingsForm data={settings.data} />}
    </div>
  );
}
