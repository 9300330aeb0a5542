import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

/** Query keys of the auth configuration screens and the operator's TOTP. */
export const authConfigKeys = {
  settings: ['auth-config', 'settings'] as const,
  templates: ['auth-config', 'templates'] as const,
  signingKeys: ['auth-config', 'signing-keys'] as const,
  totp: ['operator', 'totp'] as const,
};

const settingValue = z.union([z.boolean(), z.number(), z.string(), z.array(z.string())]);
const settingSchema = z.object({
  name: z.string(),
  group: z.string(),
  label: z.string(),
  kind: z.enum(['bool', 'int', 'text', 'list']),
  default: settingValue,
  value: settingValue,
  overridden: z.boolean(),
});
export type Setting = z.infer<typeof settingSchema>;
const secretSchema = z.object({ name: z.string(), group: z.string(), label: z.string(), set: z.boolean(), overridden: z.boolean() });
export type SecretInfo = z.infer<typeof secretSchema>;
const settingsSchema = z.object({ settings: z.array(settingSchema), secrets: z.array(secretSchema) });
export type AuthSettings = z.infer<typeof settingsSchema>;

export function useAuthSettings() {
  return useQuery({ queryKey: authConfigKeys.settings, queryFn: () => api('/auth/settings', settingsSchema) });
}

/** `null` puts a setting (or secret) back to its start-up value. */
export type SettingsChange = {
  settings?: Record<string, Setting['value'] | null>;
  secrets?: Record<string, string | null>;
};

export function useSaveAuthSettings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (change: SettingsChange) => api('/auth/settings', settingsSchema, { method: 'PUT', body: change }),
    onSuccess: (next) => qc.setQueryData(authConfigKeys.settings, next),
  });
}

const templateSchema = z.object({
  kind: z.string(),
  subject: z.string(),
  html: z.string(),
  default_subject: z.string(),
  default_html: z.string(),
  overridden: z.boolean(),
});
export type MailTemplate = z.infer<typeof templateSchema>;

export function useMailTemplates() {
  return useQuery({
    queryKey: authConfigKeys.templates,
    queryFn: () => api('/auth/templates', z.object({ templates: z.array(templateSchema) })).then((r) => r.templates),
  });
}

export type Draft = { subject: string; html: string };
const templatePath = (kind: string) => `/auth/templates/${encodeURIComponent(kind)}`;

export function useSaveTemplate(kind: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (draft: Draft) => api(templatePath(kind), templateSchema, { method: 'PUT', body: draft }),
    onSuccess: () => qc.invalidateQueries({ queryKey: authConfigKeys.templates }),
  });
}

const renderedSchema = z.object({ subject: z.string(), html: z.string(), text: z.string() });
export type Rendered = z.infer<typeof renderedSchema>;

/** The draft rendered by the server with sample values (nothing is saved). */
export function usePreview(kind: string, draft: Draft) {
  return useQuery({
    queryKey: ['auth-config', 'preview', kind, draft] as const,
    queryFn: ({ signal }) => api(`${templatePath(kind)}/preview`, renderedSchema, { method: 'POST', body: draft, signal }),
    placeholderData: (previous) => previous,
  });
}

export function useTestSend(kind: string) {
  return useMutation({
    mutationFn: (v: Draft & { to: string }) => api(`${templatePath(kind)}/test`, z.null(), { method: 'POST', body: v }),
  });
}

const keySchema = z.object({ id: z.string(), algorithm: z.string(), status: z.string(), created_at: z.string() });
export type SigningKey = z.infer<typeof keySchema>;
const keysSchema = z.object({ keys: z.array(keySchema), jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) });

export function useSigningKeys() {
  return useQuery({ queryKey: authConfigKeys.signingKeys, queryFn: () => api('/auth/signing-keys', keysSchema) });
}

export function useRotateKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/auth/signing-keys/rotate', z.object({ id: z.string() }), { method: 'POST' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: authConfigKeys.signingKeys }),
  });
}

export function useRevokeKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/auth/signing-keys/${encodeURIComponent(id)}/revoke`, z.null(), { method: 'POST' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: authConfigKeys.signingKeys }),
  });
}

export function useTotpStatus() {
  return useQuery({ queryKey: authConfigKeys.totp, queryFn: () => api('/operator/totp', z.object({ enrolled: z.boolean() })) });
}

const enrolmentSchema = z.object({ secret: z.string(), uri: z.string(), qr_code: z.string() });
export type Enrolment = z.infer<typeof enrolmentSchema>;

export function useEnrolTotp() {
  return useMutation({ mutationFn: () => api('/operator/totp/enroll', enrolmentSchema, { method: 'POST' }) });
}

export function useTotpCode(step: 'verify' | 'remove') {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api(`/operator/totp/${step}`, z.null(), { method: 'POST', body: { code } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: authConfigKeys.totp }),
  });
}
