/**
 * Duplicating a row: the insert form starts with the row's values, except the columns a copy
 * must leave to their defaults — generated and identity columns, serials (`nextval(…)`) and
 * random uuids (`gen_random_uuid()`, `uuid_generate_v4()`) — so the copy gets a new key. Pure
 * functions, tested in duplicate.test.ts.
 */
import type { Column, Relation, Row } from '../api/tables';
import { editorKind, toText } from './cell-value';

const RANDOM_UUID = /^(("?[a-z_][a-z0-9_]*"?)\.)?(gen_random_uuid|uuid_generate_v4)\(\)$/;

/** Whether a duplicated row leaves this column to its default. */
export function leftToDefault(column: Pick<Column, 'read_only' | 'identity' | 'default'>): boolean {
  if (column.read_only || column.identity) return true;
  const d = (column.default ?? '').replace(/\s+/g, '').toLowerCase();
  return d.startsWith('nextval(') || RANDOM_UUID.test(d);
}

/** The insert form's starting texts for a copy of `row` (`''`: the column's default). */
export function duplicateForm(relation: Relation, row: Row): Record<string, string> {
  const form: Record<string, string> = {};
  for (const c of relation.columns.filter((c) => !c.read_only)) {
    form[c.name] = leftToDefault(c) ? '' : (toText(row[c.name], editorKind(c)) ?? '');
  }
  return form;
}
