import { duplicateForm, leftToDefault } from './duplicate';
import type { Column, Relation } from '../api/tables';

const col = (name: string, extra: Partial<Column> = {}): Column => ({
  name,
  type_name: 'text',
  udt: 'text',
  category: 'S',
  nullable: true,
  default: null,
  read_only: false,
  identity: false,
  enum_values: null,
  ...extra,
});

describe('duplicating a row', () => {
  it('leaves identity, serial, generated and random-uuid columns to their defaults', () => {
    expect(leftToDefault(col('id', { identity: true }))).toBe(true);
    expect(leftToDefault(col('id', { default: "nextval('cars_id_seq'::regclass)" }))).toBe(true);
    expect(leftToDefault(col('id', { default: 'gen_random_uuid()' }))).toBe(true);
    expect(leftToDefault(col('id', { default: 'extensions.uuid_generate_v4()' }))).toBe(true);
    expect(leftToDefault(col('total', { read_only: true }))).toBe(true);
    expect(leftToDefault(col('created_at', { default: 'now()' }))).toBe(false);
    expect(leftToDefault(col('state', { default: "'new'::text" }))).toBe(false);
  });
  it('starts the insert form with the other values as their editors show them', () => {
    const relation: Relation = {
      schema: 'public',
      name: 'cars',
      kind: 'r',
      primary_key: ['id'],
      columns: [
        col('id', { udt: 'int8', category: 'N', identity: true }),
        col('ref', { udt: 'uuid', default: 'gen_random_uuid()' }),
        col('model'),
        col('specs', { udt: 'jsonb', category: 'U' }),
        col('photo', { udt: 'bytea', category: 'U' }),
        col('note'),
        col('total', { read_only: true }),
      ],
    };
    const row = { id: 4, ref: '6f1c…', model: 'Kia', specs: { seats: 5 }, photo: '\\x0102', note: null, total: 9 };
    expect(duplicateForm(relation, row)).toEqual({ id: '', ref: '', model: 'Kia', specs: '{\n  "seats": 5\n}', photo: '\\x0102', note: '' });
  });
});
