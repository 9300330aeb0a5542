/**
 * The usual Supabase policies as templates: each fills the form (command, roles, `using`,
 * `with check`) for a table, the owner ones from a uuid column compared with `auth.uid()`
 * (wrapped in a select, so Postgres evaluates it once per statement, as Supabase advises).
 */
import type { Command } from '../api/policies';

export type Template = { id: string; label: string; needsOwner: boolean };

export const TEMPLATES: Template[] = [
  { id: 'public-read', label: 'Public read (anyone, signed in or not)', needsOwner: false },
  { id: 'authenticated-read', label: 'Authenticated read', needsOwner: false },
  { id: 'owner-all', label: 'Owner only (read and write their rows)', needsOwner: true },
  { id: 'owner-read', label: 'Owner read', needsOwner: true },
  { id: 'authenticated-insert', label: 'Authenticated insert', needsOwner: false },
  { id: 'owner-insert', label: 'Owner insert (a row for themselves)', needsOwner: true },
  { id: 'owner-update', label: 'Owner update', needsOwner: true },
  { id: 'owner-delete', label: 'Owner delete', needsOwner: true },
];

export type Filled = { name: string; command: Command; roles: string[]; using: string; with_check: string };

/** `"col"`: a column as SQL, quoted as Postgres quotes identifiers. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The form's values for `template` on `table`, with `owner` the uuid column holding the user's id. */
export function fillTemplate(template: string, table: string, owner = 'user_id'): Filled {
  const me = `(select auth.uid()) = ${quoteIdent(owner)}`;
  switch (template) {
    case 'public-read':
      return { name: `Public read of ${table}`, command: 'select', roles: ['public'], using: 'true', with_check: '' };
    case 'authenticated-read':
      return { name: `Signed-in users read ${table}`, command: 'select', roles: ['authenticated'], using: 'true', with_check: '' };
    case 'owner-all':
      return { name: `Owners manage their ${table}`, command: 'all', roles: ['authenticated'], using: me, with_check: me };
    case 'owner-read':
      return { name: `Owners read their ${table}`, command: 'select', roles: ['authenticated'], using: me, with_check: '' };
    case 'authenticated-insert':
      return { name: `Signed-in users insert into ${table}`, command: 'insert', roles: ['authenticated'], using: '', with_check: 'true' };
    case 'owner-insert':
      return { name: `Owners insert their ${table}`, command: 'insert', roles: ['authenticated'], using: '', with_check: me };
    case 'owner-update':
      return { name: `Owners update their ${table}`, command: 'update', roles: ['authenticated'], using: me, with_check: me };
    case 'owner-delete':
      return { name: `Owners delete their ${table}`, command: 'delete', roles: ['authenticated'], using: me, with_check: '' };
    default:
      return { name: '', command: 'select', roles: ['authenticated'], using: '', with_check: '' };
  }
}

/** Which expressions a command takes. */
export function expressionsOf(command: Command): { using: boolean; withCheck: boolean } {
  return { using: command !== 'insert', withCheck: command === 'all' || command === 'insert' || command === 'update' };
}

/** The uuid columns of a table, the owner candidates (a column named like an owner first). */
export function ownerColumns(columns: { name: string; type: string }[]): string[] {
  const uuids = columns.filter((c) => c.type === 'uuid').map((c) => c.name);
  const likely = (n: string) => /(^|_)(user|owner|customer|profile|author|created_by)(_id)?$|^id$/.test(n);
  return [...uuids.filter(likely), ...uuids.filter((n) => !likely(n))];
}
