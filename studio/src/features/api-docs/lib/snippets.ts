/**
 * The supabase-js calls of a table, written for its columns: the client, select with filters,
 * insert, update, delete and a subscription to its changes. Example values follow each column's
 * type; the primary key (or the first column) picks the row of update and delete.
 */

export type SnippetColumn = { name: string; udt: string; category: string; nullable: boolean; default: string | null; read_only: boolean; enum_values: string[] | null };
export type SnippetTable = { schema: string; name: string; columns: SnippetColumn[]; primary_key: string[] };

export type Snippet = { id: 'client' | 'select' | 'insert' | 'update' | 'delete' | 'subscribe'; title: string; code: string };

/** A JavaScript literal that the column accepts. */
export function exampleValue(c: SnippetColumn): string {
  if (c.enum_values?.length) return JSON.stringify(c.enum_values[0]);
  if (c.category === 'A') return '[]';
  switch (c.udt) {
    case 'int2':
    case 'int4':
    case 'int8':
      return '1';
    case 'numeric':
    case 'float4':
    case 'float8':
      return '1.5';
    case 'bool':
      return 'true';
    case 'uuid':
      return "'00000000-0000-0000-0000-000000000000'";
    case 'json':
    case 'jsonb':
      return '{}';
    case 'date':
      return "'2026-01-31'";
    case 'timestamp':
    case 'timestamptz':
      return 'new Date().toISOString()';
    default:
      return `'${c.name.replace(/[\\']/g, '')} value'`;
  }
}

/** `name` as an object key: bare when it is an identifier, quoted otherwise. */
function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function from(t: SnippetTable): string {
  const table = JSON.stringify(t.name).replace(/^"|"$/g, "'");
  return t.schema === 'public' ? `supabase.from(${table})` : `supabase.schema('${t.schema}').from(${table})`;
}

function object(columns: SnippetColumn[], indent: string): string {
  if (columns.length === 0) return '{}';
  return `{\n${columns.map((c) => `${indent}  ${key(c.name)}: ${exampleValue(c)},`).join('\n')}\n${indent}}`;
}

/** Every snippet of a table; `url` is the API's address (the key is left to the environment). */
export function tableSnippets(t: SnippetTable, url: string): Snippet[] {
  const writable = t.columns.filter((c) => !c.read_only);
  const required = writable.filter((c) => !c.nullable && c.default === null);
  const keyColumn = t.columns.find((c) => c.name === t.primary_key[0]) ?? t.columns[0];
  const changing = writable.find((c) => !t.primary_key.includes(c.name)) ?? writable[0];
  const filterColumn = t.columns.find((c) => !t.primary_key.includes(c.name)) ?? keyColumn;
  const list = t.columns.map((c) => c.name).join(', ');
  const f = from(t);
  const eq = (c: SnippetColumn | undefined) => (c ? `\n  .eq('${c.name}', ${exampleValue(c)})` : '');
  const snippets: Snippet[] = [
    {
      id: 'client',
      title: 'Client',
      code: `import { createClient } from '@supabase/supabase-js';\nimport type { Database } from './database.types';\n\n// The publishable key is safe in a browser; row-level security decides what it may do.\nexport const supabase = createClient<Database>('${url}', process.env.SUPABASE_PUBLISHABLE_KEY!);`,
    },
    {
      id: 'select',
      title: 'Read rows',
      code: `const { data, error } = await ${f}\n  .select('${list}')${eq(filterColumn)}\n  .order('${keyColumn?.name ?? 'id'}', { ascending: true })\n  .range(0, 49);`,
    },
    {
      id: 'insert',
      title: 'Insert a row',
      code: `const { data, error } = await ${f}\n  .insert(${object(required.length ? required : writable.slice(0, 3), '  ')})\n  .select()\n  .single();`,
    },
  ];
  if (t.primary_key.length > 0 && changing) {
    snippets.push(
      { id: 'update', title: 'Update a row', code: `const { data, error } = await ${f}\n  .update({ ${key(changing.name)}: ${exampleValue(changing)} })${eq(keyColumn)}\n  .select();` },
      { id: 'delete', title: 'Delete a row', code: `const { error } = await ${f}\n  .delete()${eq(keyColumn)};` },
    );
  }
  snippets.push({
    id: 'subscribe',
    title: 'Listen to changes',
    code: `// The table must be in the supabase_realtime publication.\nconst channel = supabase\n  .channel('${t.schema}-${t.name}-changes')\n  .on('postgres_changes', { event: '*', schema: '${t.schema}', table: '${t.name}' }, (payload) => {\n    console.log(payload.eventType, payload.new, payload.old);\n  })\n  .subscribe();`,
  });
  return snippets;
}
