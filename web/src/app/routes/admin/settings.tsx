import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Bell, Building2, Briefcase, Download, Save, Server, Upload } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Alert, SelectField, TextField } from '@/components/ui/field';
import { Spinner } from '@/components/ui/states';
import { todayIso } from '@/lib/format';
import { cn } from '@/lib/cn';
import { useSaveSettings, useSettings } from '@/features/admin/api/settings';
import { AdminHeader } from '@/features/admin/components/admin-ui';
import { parseSettingsFile, settingsSchema, type Settings, type SettingsSection } from '@/features/admin/schemas/settings-schema';
import { backupLabels, cancellationLabels } from '@/features/admin/lib/labels';
import { downloadJson } from '@/features/admin/lib/download';

const tabs: { id: SettingsSection; label: string; icon: typeof Bell }[] = [
  { id: 'general', label: 'Général', icon: Building2 },
  { id: 'business', label: 'Business', icon: Briefcase },
  { id: 'notifications', label: 'Notifications', icon: Bell },
  { id: 'system', label: 'Système', icon: Server },
];

type Errors = Partial<Record<string, string>>;

export default function AdminSettingsPage() {
  usePageTitle('Paramètres système');
  const q = useSettings();
  const save = useSaveSettings();
  const [form, setForm] = useState<Settings | null>(null);
  const [tab, setTab] = useState<SettingsSection>('general');
  const [errors, setErrors] = useState<Errors>({});
  const [banner, setBanner] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});

  useEffect(() => {
    if (q.data) setForm(structuredClone(q.data));
  }, [q.data]);
  useEffect(() => {
    if (banner?.tone !== 'success') return;
    const t = setTimeout(() => setBanner(null), 3000);
    return () => clearTimeout(t);
  }, [banner]);

  if (q.isPending || (!form && !q.isError)) return <Spinner label="Chargement des paramètres…" />;
  if (q.isError || !form) return <Alert>Erreur lors du chargement des paramètres</Alert>;

  const set = <S extends SettingsSection>(section: S, key: keyof Settings[S], value: unknown) =>
    setForm((f) => (f ? { ...f, [section]: { ...f[section], [key]: value } } : f));
  const num = (e: { target: { value: string } }) => (e.target.value === '' ? Number.NaN : Number(e.target.value));
  const shown = (v: unknown) => (typeof v === 'number' && Number.isNaN(v) ? '' : String(v));

  const onSave = () => {
    setBanner(null);
    const r = settingsSchema.safeParse(form);
    if (!r.success) {
      const errs: Errors = {};
      for (const i of r.error.issues) {
        const key = i.path.join('.');
        if (!(key in errs)) errs[key] = i.message;
      }
      setErrors(errs);
      const first = r.error.issues[0];
      if (first) setTab(first.path[0] as SettingsSection);
      setBanner({ tone: 'error', text: `Erreur lors de la sauvegarde : ${first?.message ?? 'valeurs invalides'}` });
      return;
    }
    setErrors({});
    save.mutate(r.data, {
      onSuccess: () => setBanner({ tone: 'success', text: 'Paramètres sauvegardés avec succès' }),
      onError: (e) => setBanner({ tone: 'error', text: `Erreur lors de la sauvegarde : ${e.message}` }),
    });
  };

  const onImport = async (file: File | undefined) => {
    if (!file) return;
    setBanner(null);
    try {
      if (!file.name.toLowerCase().endsWith('.json')) throw new Error('not json');
      setForm(parseSettingsFile(await file.text(), form));
      setErrors({});
      setBanner({ tone: 'success', text: 'Paramètres importés avec succès' });
    } catch {
      setBanner({ tone: 'error', text: "Erreur lors de l'importation" });
    }
  };

  const onTabKey = (e: KeyboardEvent, i: number) => {
    const next = e.key === 'ArrowDown' || e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowUp' || e.key === 'ArrowLeft' ? i - 1 : null;
    if (next === null) return;
    e.preventDefault();
    const t = tabs[(next + tabs.length) % tabs.length]!;
    setTab(t.id);
    tabRefs.current[t.id]?.focus();
  };

  const g = form.general;
  const b = form.business;
  const n = form.notifications;
  const s = form.system;
  const err = (k: string) => errors[k];
  const toggle = <S extends 'notifications' | 'system'>(section: S, key: keyof Settings[S] & string, label: string) => (
    <label className="flex items-center justify-between gap-4 rounded-lg border border-slate-200 px-3 py-2.5 text-sm">
      <span>{label}</span>
      <input type="checkbox" className="h-5 w-5 accent-blue-900" checked={Boolean(form[section][key])} onChange={(e) => set(section, key, e.target.checked)} />
    </label>
  );

  return (
    <>
      <AdminHeader title="Paramètres système" subtitle="Enregistrés sur le serveur et vérifiés par la base de données">
        <Button variant="secondary" onClick={() => downloadJson(`parametres-${todayIso()}.json`, form)}>
          <Download className="h-4 w-4" aria-hidden="true" /> Exporter
        </Button>
        <Button variant="secondary" onClick={() => fileRef.current?.click()}>
          <Upload className="h-4 w-4" aria-hidden="true" /> Importer
        </Button>
        <input ref={fileRef} type="file" accept=".json,application/json" className="sr-only" aria-label="Fichier de paramètres (.json)" tabIndex={-1} onChange={(e) => {
          void onImport(e.target.files?.[0]);
          e.target.value = '';
        }} />
        <Button onClick={onSave} disabled={save.isPending}>
          <Save className="h-4 w-4" aria-hidden="true" /> {save.isPending ? 'Sauvegarde…' : 'Sauvegarder'}
        </Button>
      </AdminHeader>

      {banner && (
        <div className="mb-4">
          <Alert tone={banner.tone}>{banner.text}</Alert>
        </div>
      )}

      <div className="grid gap-6 lg:grid-cols-[14rem_1fr]">
        <div role="tablist" aria-label="Groupes de paramètres" aria-orientation="vertical" className="flex gap-1 overflow-x-auto lg:flex-col">
          {tabs.map(({ id, label, icon: Icon }, i) => (
            <button
              key={id}
              ref={(el) => {
                tabRefs.current[id] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${id}`}
              aria-selected={tab === id}
              aria-controls={`panel-${id}`}
              tabIndex={tab === id ? 0 : -1}
              onClick={() => setTab(id)}
              onKeyDown={(e) => onTabKey(e, i)}
              className={cn('flex items-center gap-2 whitespace-nowrap rounded-lg px-3 py-2 text-left text-sm font-medium focus-visible:outline-3 focus-visible:outline-amber-500', tab === id ? 'bg-blue-900 text-white' : 'bg-white text-slate-800 hover:bg-slate-50')}
            >
              <Icon className="h-4 w-4" aria-hidden="true" /> {label}
            </button>
          ))}
        </div>
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm">
          {tab === 'general' && (
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField label="Nom de l'entreprise" value={g.companyName} onChange={(e) => set('general', 'companyName', e.target.value)} error={err('general.companyName')} required />
              <TextField label="Email de l'entreprise" type="email" value={g.companyEmail} onChange={(e) => set('general', 'companyEmail', e.target.value)} error={err('general.companyEmail')} required />
              <TextField label="Téléphone" type="tel" value={g.companyPhone} onChange={(e) => set('general', 'companyPhone', e.target.value)} />
              <SelectField label="Devise" value={g.currency} onChange={(e) => set('general', 'currency', e.target.value)}>
                <option value="USD">Dollar américain (USD)</option>
                <option value="EUR">Euro (EUR)</option>
                <option value="CDF">Franc congolais (CDF)</option>
              </SelectField>
              {g.currency !== 'USD' && (
                <TextField
                  label={g.currency === 'CDF' ? 'Taux : francs congolais pour 1 $' : 'Taux : euros pour 1 $'}
                  type="number"
                  min="0"
                  step="any"
                  value={shown(g.exchangeRates[g.currency])}
                  onChange={(e) => set('general', 'exchangeRates', { ...g.exchangeRates, [g.currency]: num(e) })}
                  error={err(`general.exchangeRates.${g.currency}`)}
                  hint="Les montants restent enregistrés en dollars ; le site les affiche dans cette devise."
                />
              )}
              <SelectField label="Fuseau horaire" value={g.timezone} onChange={(e) => set('general', 'timezone', e.target.value)}>
                <option value="Africa/Kinshasa">Afrique/Kinshasa</option>
                <option value="Europe/Paris">Europe/Paris</option>
                <option value="America/New_York">Amérique/New York</option>
              </SelectField>
              {/* the site is written in French only: the language is said, not chosen */}
              <div className="text-sm">
                <p className="font-medium text-slate-800">Langue</p>
                <p className="mt-2 text-slate-700" data-testid="settings-language">
                  Français (le site n'existe qu'en français)
                </p>
              </div>
              <div className="sm:col-span-2">
                <TextField label="Adresse" value={g.companyAddress} onChange={(e) => set('general', 'companyAddress', e.target.value)} />
              </div>
            </div>
          )}
          {tab === 'business' && (
            <div className="grid gap-4 sm:grid-cols-2">
              <TextField label="Durée de location par défaut (jours)" type="number" min={1} value={shown(b.defaultRentalDuration)} onChange={(e) => set('business', 'defaultRentalDuration', num(e))} error={err('business.defaultRentalDuration')} />
              <TextField label="Durée minimum (jours)" type="number" min={1} value={shown(b.minimumRentalDuration)} onChange={(e) => set('business', 'minimumRentalDuration', num(e))} error={err('business.minimumRentalDuration')} />
              <TextField label="Durée maximum (jours)" type="number" min={1} value={shown(b.maximumRentalDuration)} onChange={(e) => set('business', 'maximumRentalDuration', num(e))} error={err('business.maximumRentalDuration')} />
              <TextField label="Réservation à l'avance (jours)" type="number" min={1} value={shown(b.advanceBookingDays)} onChange={(e) => set('business', 'advanceBookingDays', num(e))} error={err('business.advanceBookingDays')} />
              <SelectField label="Politique d'annulation" value={b.cancellationPolicy} onChange={(e) => set('business', 'cancellationPolicy', e.target.value)}>
                {Object.entries(cancellationLabels).map(([k, l]) => (
                  <option key={k} value={k}>
                    {l}
                  </option>
                ))}
              </SelectField>
              <TextField label="Frais de retard (%)" type="number" min={0} max={100} step={0.1} value={shown(b.lateFeePercentage)} onChange={(e) => set('business', 'lateFeePercentage', num(e))} error={err('business.lateFeePercentage')} />
              <TextField label="Caution (%)" type="number" min={0} max={100} step={0.1} value={shown(b.securityDepositPercentage)} onChange={(e) => set('business', 'securityDepositPercentage', num(e))} error={err('business.securityDepositPercentage')} />
            </div>
          )}
          {tab === 'notifications' && (
            <div className="space-y-3">
              <TextField label="Email administrateur" type="email" value={n.adminEmailAddress} onChange={(e) => set('notifications', 'adminEmailAddress', e.target.value)} error={err('notifications.adminEmailAddress')} required />
              {toggle('notifications', 'emailNotifications', 'Notifications par email')}
              {toggle('notifications', 'smsNotifications', 'Notifications par SMS')}
              {toggle('notifications', 'bookingConfirmations', 'Confirmations de réservation')}
              {toggle('notifications', 'paymentReminders', 'Rappels de paiement')}
              {toggle('notifications', 'maintenanceAlerts', 'Alertes de maintenance')}
              {toggle('notifications', 'lowStockAlerts', 'Alertes de disponibilité faible')}
            </div>
          )}
          {tab === 'system' && (
            <div className="space-y-4">
              <div className="grid gap-4 sm:grid-cols-2">
                <TextField label="Délai d'expiration de session (minutes)" type="number" min={5} max={1440} value={shown(s.sessionTimeout)} onChange={(e) => set('system', 'sessionTimeout', num(e))} error={err('system.sessionTimeout')} hint="Entre 5 et 1440" />
                <TextField label="Tentatives de connexion maximum" type="number" min={3} max={10} value={shown(s.maxLoginAttempts)} onChange={(e) => set('system', 'maxLoginAttempts', num(e))} error={err('system.maxLoginAttempts')} hint="Entre 3 et 10" />
                <SelectField label="Fréquence de sauvegarde" value={s.backupFrequency} onChange={(e) => set('system', 'backupFrequency', e.target.value)}>
                  {Object.entries(backupLabels).map(([k, l]) => (
                    <option key={k} value={k}>
                      {l}
                    </option>
                  ))}
                </SelectField>
                <TextField label="Rétention des données (jours)" type="number" min={30} max={3650} value={shown(s.dataRetentionDays)} onChange={(e) => set('system', 'dataRetentionDays', num(e))} error={err('system.dataRetentionDays')} hint="Entre 30 et 3650" />
              </div>
              {toggle('system', 'maintenanceMode', 'Mode maintenance')}
              {toggle('system', 'allowRegistrations', 'Autoriser les inscriptions')}
              {toggle('system', 'requireEmailVerification', "Exiger la vérification de l'email")}
            </div>
          )}
        </div>
      </div>
    </>
  );
}
