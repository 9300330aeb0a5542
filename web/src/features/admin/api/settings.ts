import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { supabase } from '@/lib/supabase';
import { toAppError } from '@/lib/errors';
import { defaultSettings, settingsSections, type Settings } from '../schemas/settings-schema';
import { adminKeys } from './keys';
import { siteSettingsKeys } from '@/lib/site-settings';

/** The four groups from `app_settings` (administrators only); a missing group keeps its defaults. */
export async function fetchSettings(): Promise<Settings> {
  const { data, error } = await supabase().from('app_settings').select('section, value');
  if (error) throw toAppError(error, 'Erreur lors du chargement des paramètres');
  const out = structuredClone(defaultSettings) as Record<string, Record<string, unknown>>;
  for (const row of data ?? []) {
    const section = row.section as string;
    if (section in out) out[section] = { ...out[section], ...(row.value as Record<string, unknown>) };
  }
  return out as unknown as Settings;
}

/** Saves the four groups; the database checks every range again (V40). */
export async function saveSettings(settings: Settings): Promise<void> {
  const rows = settingsSections.map((section) => ({ section, value: settings[section] }));
  const { error } = await supabase().from('app_settings').upsert(rows, { onConflict: 'section' });
  if (error) throw toAppError(error, 'Erreur lors de la sauvegarde');
}

export const useSettings = () => useQuery({ queryKey: adminKeys.settings(), queryFn: fetchSettings, staleTime: Infinity });

export function useSaveSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveSettings,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: adminKeys.settings() });
      // the site's own view of them (currency, maintenance, contact details) follows at once.
      void qc.invalidateQueries({ queryKey: siteSettingsKeys.all });
    },
  });
}
