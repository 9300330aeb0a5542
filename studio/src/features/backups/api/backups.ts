import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';

export const backupKeys = { list: ['backups'] as const };

const backupSchema = z.object({
  label: z.string(),
  type: z.string(),
  started_at: z.number(),
  stopped_at: z.number(),
  database_bytes: z.number(),
  stored_bytes: z.number(),
  added_bytes: z.number(),
});
export type Backup = z.infer<typeof backupSchema>;

const statusSchema = z.object({
  last_success: z.number().nullable(),
  last_success_age_seconds: z.number(),
  wal_archive_lag_seconds: z.number(),
  last_verify_ok: z.boolean().nullable(),
  last_verify_at: z.number().nullable(),
});
export type BackupStatus = z.infer<typeof statusSchema>;

const listSchema = z.union([
  z.object({ enabled: z.literal(false), reason: z.string(), backups: z.array(backupSchema) }),
  z.object({
    enabled: z.literal(true),
    repository: z.string(),
    encrypted: z.boolean(),
    backups: z.array(backupSchema),
    archive: z.object({ min: z.string().nullable(), max: z.string().nullable() }).nullable(),
    status: statusSchema.nullable(),
  }),
]);
export type BackupList = z.infer<typeof listSchema>;

export function useBackups() {
  return useQuery({ queryKey: backupKeys.list, queryFn: () => api('/backups', listSchema), refetchInterval: 15000 });
}

const takenSchema = z.object({ label: z.string(), type: z.string(), seconds: z.number() });

export function useTakeBackup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (kind: 'full' | 'diff' | 'incr') => api('/backups', takenSchema, { method: 'POST', body: { kind } }),
    onSettled: () => qc.invalidateQueries({ queryKey: backupKeys.list }),
  });
}

const verificationSchema = z.object({
  label: z.string(),
  ok: z.boolean(),
  tables: z.number(),
  rows: z.number(),
  compared: z.number().nullable(),
  files_checked: z.number().nullable(),
  failures: z.array(z.string()),
  seconds: z.number(),
});
export type Verification = z.infer<typeof verificationSchema>;

export function useVerifyBackup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api('/backups/verify', verificationSchema, { method: 'POST' }),
    onSettled: () => qc.invalidateQueries({ queryKey: backupKeys.list }),
  });
}

export const restoreSchema = z.object({
  target_dir: z
    .string()
    .trim()
    .min(1, 'Enter a folder')
    .refine((p) => p.startsWith('/'), 'Enter an absolute path (starting with /)')
    .refine((p) => !p.split('/').includes('..'), 'The path must not contain ..'),
  label: z.string().optional(),
});
export type RestoreInput = z.infer<typeof restoreSchema>;

const restoredSchema = z.object({
  data_dir: z.string(),
  url: z.string().nullable(),
  files: z.object({ restored: z.number(), bytes: z.number(), missing: z.array(z.string()), corrupt: z.array(z.string()) }).nullable(),
  slots_dropped: z.array(z.string()),
  seconds: z.number(),
  stop_with: z.string(),
});
export type Restored = z.infer<typeof restoredSchema>;

export function useRestoreBackup() {
  return useMutation({
    mutationFn: (input: RestoreInput) => api('/backups/restore', restoredSchema, { method: 'POST', body: { ...input, confirm: true } }),
  });
}
