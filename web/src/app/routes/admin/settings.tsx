import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useFormContext, type FieldErrors } from 'react-hook-form';
import { Bell, Building2, Briefcase, Download, Save, Server, Upload } from 'lucide-react';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/field';
import { Field, firstError, Form, NumberFormField, SelectFormField, useZodForm } from '@/components/ui/form';
import { Spinner } from '@/components/ui/states';
import { todayIso } from '@/lib/format';
import { cn } from '@/lib/cn';
import { useSaveSettings, useSettings } from '@/features/admin/api/settings';
import { AdminHeader } from '@/features/admin/components/admin-ui';
import { parseSettingsFile, settingsSchema, settingsSections, type Settings, type SettingsSection } from '@/features/admin/schemas/settings-schema';
import { backupLabels, cancellationLabels } from '@/features/admin/lib/labels';
import { downloadJson } from '@/features/admin/lib/download';

/**
 * The back office's settings: four groups in tabs, one form of `settingsSchema` over the four.
 * Errors show when Sauvegarder is pressed (under their fields, the first one in the banner, its
 * tab opened) and stay until the next save, as they always have. The form follows the saved
 * settings when they change (after a save, the server's copy).
 */

const tabs: { id: SettingsSection; label: string; icon: typeof Bell }[] = [
  { id: 'general', label: 'Général', icon: Building2 },
  { id: 'business', label: 'Business', icon: Briefcase },
  { id: 'notifications', label: 'Notifications', icon: Bell },
  { id: 'system', label: 'Système', icon: Server },
];

export default function AdminSettingsPage() {
  usePageTitle('Paramètres système');
  const q = useSettings();
  if (q.isPending) return <Spinner label="Chargement des paramètres…" />;
  if (q.isError) return <Alert>Erreur lors du chargement des paramètres</Alert>;
  return <SettingsForm settings={q.data} />;
}

/** A switch of the form, its label before it. */
function Toggle({ name, label }: { name: `${'notifications' | 'system'}.${string}`; label: string }) {
  const { register } = useFormContext();
  return (
    <label className="flex items-center justify-between gap-4 rounded-lg border border-slate-200 px-3 py-2.5 text-sm">
      <span>{label}</span>
      <input type="checkbox" className="h-5 w-5 accent-blue-900" {...register(name)} />
    </label>
  );
}

function SettingsForm({ settings }: { settings: Settings }) {
  const save = useSaveSettings();
  const form = useZodForm(settingsSchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', values: settings, resetOptions: { keepErrors: true } });
  const [tab, setTab] = useState<SettingsSection>('general');
  const [banner, setBanner] = useState<{ tone: 'error' | 'success'; text: string } | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const tabRefs = useRef<Record<string, HTMLButtonElement | null>>({});
  const currency = form.watch('general.currency');

  useEffect(() => {
    if (banner?.tone !== 'success') return;
    const t = setTimeout(() => setBanner(null), 3000);
    return () => clearTimeout(t);
  }, [banner]);

  const onValid = (valid: Settings) => {
    setBanner(null);
    save.mutate(valid, {
      onSuccess: () => setBanner({ tone: 'success', text: 'Paramètres sauvegardés avec succès' }),
      onError: (e) => setBanner({ tone: 'error', text: `Erreur lors de la sauvegarde : ${e.message}` }),
    });
  };

  const onInvalid = (errors: FieldErrors) => {
    const first = firstError(errors);
    const section = settingsSections.find((s) => first?.name.startsWith(`${s}.`));
    if (section) setTab(section);
    setBanner({ tone: 'error', text: `Erreur lors de la sauvegarde : ${first?.message ?? 'valeurs invalides'}` });
  };

  const onImport = async (file: File | undefined) => {
    if (!file) return;
    setBanner(null);
    try {
      if (!file.name.toLowerCase().endsWith('.json')) throw new Error('not json');
      form.reset(parseSettingsFile(await file.text(), form.getValues() as Settings));
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

  return (
    <Form form={form} onValid={onValid} onInvalid={onInvalid}>
      <AdminHeader title="Paramètres système" subtitle="Enregistrés sur le serveur et vérifiés par la base de données">
        <Button variant="secondary" onClick={() => downloadJson(`parametres-${todayIso()}.json`, form.getValues())}>
          <Download className="h-4 w-4" aria-hidden="true" /> Exporter
        </Button>
        <Button variant="secondary" onClick={() => fileRef.current?.click()}>
          <Upload className="h-4 w-4" aria-hidden="true" /> Importer
        </Button>
        <input ref={fileRef} type="file" accept=".json,application/json" className="sr-only" aria-label="Fichier de paramètres (.json)" tabIndex={-1} onChange={(e) => {
          void onImport(e.target.files?.[0]);
          e.target.value = '';
        }} />
        <Button type="submit" disabled={save.isPending}>
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
              <Field name="general.companyName" label="Nom de l'entreprise" required />
              <Field name="general.companyEmail" label="Email de l'entreprise" type="email" required />
              <Field name="general.companyPhone" label="Téléphone" type="tel" />
              <SelectFormField name="general.currency" label="Devise">
                <option value="USD">Dollar américain (USD)</option>
                <option value="EUR">Euro (EUR)</option>
                <option value="CDF">Franc congolais (CDF)</option>
              </SelectFormField>
              {currency !== 'USD' && (
                <NumberFormField
                  key={currency}
                  name={`general.exchangeRates.${currency}`}
                  label={currency === 'CDF' ? 'Taux : francs congolais pour 1 $' : 'Taux : euros pour 1 $'}
                  min="0"
                  step="any"
                  hint="Les montants restent enregistrés en dollars ; le site les affiche dans cette devise."
                />
              )}
              <SelectFormField name="general.timezone" label="Fuseau horaire">
                <option value="Africa/Kinshasa">Afrique/Kinshasa</option>
                <option value="Europe/Paris">Europe/Paris</option>
                <option value="America/New_York">Amérique/New York</option>
              </SelectFormField>
              {/* the site is written in French only: the language is said, not chosen */}
              <div className="text-sm">
                <p className="font-medium text-slate-800">Langue</p>
                <p className="mt-2 text-slate-700" data-testid="settings-language">
                  Français (le site n'existe qu'en français)
                </p>
              </div>
              <div className="sm:col-span-2">
                <Field name="general.companyAddress" label="Adresse" />
              </div>
            </div>
          )}
          {tab === 'business' && (
            <div className="grid gap-4 sm:grid-cols-2">
              <NumberFormField name="business.defaultRentalDuration" label="Durée de location par défaut (jours)" min={1} />
              <NumberFormField name="business.minimumRentalDuration" label="Durée minimum (jours)" min={1} />
              <NumberFormField name="business.maximumRentalDuration" label="Durée maximum (jours)" min={1} />
              <NumberFormField name="business.advanceBookingDays" label="Réservation à l'avance (jours)" min={1} />
              <SelectFormField name="business.cancellationPolicy" label="Politique d'annulation">
                {Object.entries(cancellationLabels).map(([k, l]) => (
                  <option key={k} value={k}>
                    {l}
                  </option>
                ))}
              </SelectFormField>
              <NumberFormField name="business.lateFeePercentage" label="Frais de retard (%)" min={0} max={100} step={0.1} />
              <NumberFormField name="business.securityDepositPercentage" label="Caution (%)" min={0} max={100} step={0.1} />
            </div>
          )}
          {tab === 'notifications' && (
            <div className="space-y-3">
              <Field name="notifications.adminEmailAddress" label="Email administrateur" type="email" required />
              <Toggle name="notifications.emailNotifications" label="Notifications par email" />
              <Toggle name="notifications.smsNotifications" label="Notifications par SMS" />
              <Toggle name="notifications.bookingConfirmations" label="Confirmations de réservation" />
              <Toggle name="notifications.paymentReminders" label="Rappels de paiement" />
              <Toggle name="notifications.maintenanceAlerts" label="Alertes de maintenance" />
              <Toggle name="notifications.lowStockAlerts" label="Alertes de disponibilité faible" />
            </div>
          )}
          {tab === 'system' && (
            <div className="space-y-4">
              <div className="grid gap-4 sm:grid-cols-2">
                <NumberFormField name="system.sessionTimeout" label="Délai d'expiration de session (minutes)" min={5} max={1440} hint="Entre 5 et 1440" />
                <NumberFormField name="system.maxLoginAttempts" label="Tentatives de connexion maximum" min={3} max={10} hint="Entre 3 et 10" />
                <SelectFormField name="system.backupFrequency" label="Fréquence de sauvegarde">
                  {Object.entries(backupLabels).map(([k, l]) => (
                    <option key={k} value={k}>
                      {l}
                    </option>
                  ))}
                </SelectFormField>
                <NumberFormField name="system.dataRetentionDays" label="Rétention des données (jours)" min={30} max={3650} hint="Entre 30 et 3650" />
              </div>
              <Toggle name="system.maintenanceMode" label="Mode maintenance" />
              <Toggle name="system.allowRegistrations" label="Autoriser les inscriptions" />
              <Toggle name="system.requireEmailVerification" label="Exiger la vérification de l'email" />
            </div>
          )}
        </div>
      </div>
    </Form>
  );
}
