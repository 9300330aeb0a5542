import { z } from 'zod';
import type { Role, RoleAttributes } from '../api/database';

/** The role form's fields (create and alter). */
export const roleFormSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Name the role')
    .refine((n) => new TextEncoder().encode(n).length <= 63, 'At most 63 bytes')
    .refine((n) => !n.startsWith('pg_') && !n.startsWith('supabase_'), 'pg_ and supabase_ names are reserved'),
  login: z.boolean(),
  password: z.string(),
  clear_password: z.boolean(),
  inherit: z.boolean(),
  create_db: z.boolean(),
  create_role: z.boolean(),
  bypass_rls: z.boolean(),
  connection_limit: z.string().trim().regex(/^(-1|\d+)$/, '-1 (no limit) or a number'),
  valid_until: z.string().trim(),
});
export type RoleForm = z.infer<typeof roleFormSchema>;

/** The form's values for a new role, or for an existing one. */
export function roleFormDefaults(role?: Role): RoleForm {
  return {
    name: role?.name ?? '',
    login: role?.can_login ?? true,
    password: '',
    clear_password: false,
    inherit: role?.inherit ?? true,
    create_db: role?.create_db ?? false,
    create_role: role?.create_role ?? false,
    bypass_rls: role?.bypass_rls ?? false,
    connection_limit: String(role?.connection_limit ?? -1),
    valid_until: role?.valid_until && !role.valid_until.startsWith('infinity') ? role.valid_until : '',
  };
}

/**
 * The attributes to send: every one for a new role; for an existing one (`before`) only those
 * the form changed, a new password if one was typed, or its removal.
 */
export function attributesOf(v: RoleForm, before?: Role): RoleAttributes {
  const all: RoleAttributes = {
    login: v.login,
    inherit: v.inherit,
    create_db: v.create_db,
    create_role: v.create_role,
    bypass_rls: v.bypass_rls,
    connection_limit: Number(v.connection_limit),
    valid_until: v.valid_until,
  };
  if (!before) {
    if (v.password) all.password = v.password;
    if (!v.valid_until) delete all.valid_until;
    return all;
  }
  const was = roleFormDefaults(before);
  const out: RoleAttributes = {};
  if (v.login !== was.login) out.login = v.login;
  if (v.inherit !== was.inherit) out.inherit = v.inherit;
  if (v.create_db !== was.create_db) out.create_db = v.create_db;
  if (v.create_role !== was.create_role) out.create_role = v.create_role;
  if (v.bypass_rls !== was.bypass_rls) out.bypass_rls = v.bypass_rls;
  if (v.connection_limit.trim() !== was.connection_limit) out.connection_limit = Number(v.connection_limit);
  if (v.valid_until !== was.valid_until) out.valid_until = v.valid_until;
  if (v.password) out.password = v.password;
  else if (v.clear_password) out.clear_password = true;
  return out;
}
