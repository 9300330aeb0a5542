import { z } from 'zod';

/** A function's name as the server takes it: letters, digits, - and _, not starting with _. */
export const slugSchema = z
  .string()
  .trim()
  .min(1, 'Name the function')
  .max(128, 'At most 128 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'Letters, digits, - and _ only, not starting with - or _');

/** A secret's name: letters, digits and _, not starting with a digit or SUPABASE_. */
export const secretNameSchema = z
  .string()
  .trim()
  .min(1, 'Name the secret')
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'Letters, digits and _ only, not starting with a digit')
  .refine((n) => !n.toUpperCase().startsWith('SUPABASE_'), 'Names starting with SUPABASE_ are reserved');

export type EditedFile = { path: string; content: string };

/** The first file of a new function. */
export function template(slug: string): EditedFile[] {
  return [
    {
      path: 'index.ts',
      content: `// ${slug}: an Edge Function (Deno). It answers every request to /functions/v1/${slug}.
Deno.serve(async (req: Request) => {
  const { name } = await req.json().catch(() => ({ name: 'world' }));
  console.log(\`${slug} called by \${req.method} with name=\${name}\`);
  return new Response(JSON.stringify({ message: \`Hello \${name}!\` }), {
    headers: { 'Content-Type': 'application/json' },
  });
});
`,
    },
  ];
}

/** A path a new file may take: relative, \`/\`-separated, no empty, \`.\` or \`..\` parts. */
export function validPath(path: string): boolean {
  const parts = path.split('/');
  return path.length > 0 && path.length <= 255 && parts.every((p) => p !== '' && p !== '.' && p !== '..') && !/[\\\s]/.test(path);
}

/** Request headers typed one per line as `Name: value`; blank lines are skipped. */
export function parseHeaders(text: string): { ok: true; headers: Record<string, string> } | { ok: false; error: string } {
  const headers: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (!line) continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return { ok: false, error: `Line ${i + 1}: write a header as Name: value` };
    headers[name] = line.slice(colon + 1).trim();
  }
  return { ok: true, headers };
}

/** A body pretty-printed when it is JSON, else as it came. */
export function prettyBody(body: string, contentType: string | undefined): string {
  if (!contentType?.includes('json')) return body;
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
