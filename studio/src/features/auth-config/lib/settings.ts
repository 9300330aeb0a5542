import type { Setting } from '../api/auth-config';

/** The screen's sections, in order, with their titles (provider sections follow). */
export const GROUPS: { id: string; title: string }[] = [
  { id: 'general', title: 'Sign-ups and providers' },
  { id: 'urls', title: 'Redirect URLs' },
  { id: 'passwords', title: 'Passwords' },
  { id: 'rate_limits', title: 'Rate limits' },
  { id: 'mfa', title: 'Multi-factor authentication' },
  { id: 'smtp', title: 'SMTP (outgoing mail)' },
  { id: 'sms', title: 'SMS provider (text messages)' },
  { id: 'hook_custom_access_token', title: 'Hook: custom access token' },
  { id: 'hook_password_verification_attempt', title: 'Hook: password verification attempt' },
  { id: 'hook_mfa_verification_attempt', title: 'Hook: MFA verification attempt' },
  { id: 'hook_before_user_created', title: 'Hook: before user created' },
  { id: 'webauthn', title: 'WebAuthn relying party' },
  { id: 'oauth_server', title: 'OAuth 2.1 server (sign in with this project)' },
];

export const PROVIDERS: Record<string, string> = {
  google: 'Google',
  apple: 'Apple',
  azure: 'Azure',
  keycloak: 'Keycloak',
  github: 'GitHub',
  gitlab: 'GitLab',
  discord: 'Discord',
  facebook: 'Facebook',
};

/** What a form field holds for a setting: a checkbox's boolean, else text (a list one item a line). */
export type FieldValue = boolean | string;

export function toField(setting: Pick<Setting, 'kind'>, value: Setting['value']): FieldValue {
  if (setting.kind === 'bool') return value === true;
  if (Array.isArray(value)) return value.join('\n');
  return String(value);
}

/** The JSON value of a field, or an error message when it is not one of the setting's kind. */
export function fromField(setting: Pick<Setting, 'kind'>, field: FieldValue): { value: Setting['value'] } | { error: string } {
  switch (setting.kind) {
    case 'bool':
      return { value: field === true };
    case 'int': {
      const text = String(field).trim();
      if (!/^\d+$/.test(text)) return { error: 'A whole number, 0 or more' };
      return { value: Number(text) };
    }
    case 'list':
      return {
        value: String(field)
          .split(/[\n,]/)
          .map((s) => s.trim())
          .filter(Boolean),
      };
    default:
      return { value: String(field).trim() };
  }
}

/** The settings whose field differs from the value in force, as the PUT body wants them. */
export function changedSettings(settings: Setting[], fields: Record<string, FieldValue>): { changes: Record<string, Setting['value']>; errors: Record<string, string> } {
  const changes: Record<string, Setting['value']> = {};
  const errors: Record<string, string> = {};
  for (const s of settings) {
    const field = fields[s.name];
    if (field === undefined) continue;
    const parsed = fromField(s, field);
    if ('error' in parsed) {
      errors[s.name] = parsed.error;
      continue;
    }
    if (JSON.stringify(parsed.value) !== JSON.stringify(s.value)) changes[s.name] = parsed.value;
  }
  return { changes, errors };
}
