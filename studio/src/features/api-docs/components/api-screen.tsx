import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { usePublicTable, usePublicTables, useApiSettings, useRevealKey, useTypes, type SecretKind } from '../api/api-docs';
import { tableSnippets } from '../lib/snippets';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { ErrorNote, Loading } from '@/components/ui/states';
import { paths } from '@/lib/paths';

function Code({ code, label }: { code: string; label: string }) {
  return (
    <div className="relative">
      <div className="absolute top-1 right-1">
        <CopyButton text={code} label={`Copy ${label}`} />
      </div>
      <pre tabIndex={0} aria-label={label} className="overflow-auto rounded-md border border-slate-200 bg-slate-50 p-2 pr-20 font-mono text-xs leading-5 text-slate-900">
        {code}
      </pre>
    </div>
  );
}

function KeyRow({ name, hint, value }: { name: string; hint: string; value: ReactNode }) {
  return (
    <div className="grid gap-1 border-b border-slate-200 py-2 md:grid-cols-[12rem_1fr]">
      <div>
        <p className="text-sm font-medium">{name}</p>
        <p className="text-xs text-slate-600">{hint}</p>
      </div>
      <div className="min-w-0">{value}</div>
    </div>
  );
}

function Secret({ kind, name }: { kind: SecretKind; name: string }) {
  const reveal = useRevealKey();
  if (reveal.data) return <Code code={reveal.data} label={`${name} (revealed)`} />;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className="font-mono text-xs text-slate-600">••••••••••••••••</span>
      <Button variant="danger" disabled={reveal.isPending} onClick={() => reveal.mutate(kind)}>
        Reveal {name}
      </Button>
      {reveal.error && <ErrorNote error={reveal.error} />}
    </div>
  );
}

function Keys() {
  const settings = useApiSettings();
  if (settings.isPending) return <Loading />;
  if (settings.error) return <ErrorNote error={settings.error} />;
  const s = settings.data;
  return (
    <section aria-labelledby="keys-title" className="px-3 py-2">
      <h2 id="keys-title" className="text-sm font-semibold">
        URL and keys
      </h2>
      <KeyRow name="API URL" hint="Every surface is under it: /rest/v1, /auth/v1, /storage/v1, /realtime/v1, /functions/v1." value={<Code code={s.url} label="API URL" />} />
      <KeyRow name="Publishable key" hint="Safe in a browser with row-level security on." value={<Code code={s.publishable_key} label="Publishable key" />} />
      <KeyRow name="anon key (legacy)" hint="The JWT form of the publishable key." value={<Code code={s.anon_key} label="anon key" />} />
      <KeyRow name="Secret key" hint="Bypasses row-level security: servers only. Revealing it is audited." value={<Secret kind="secret" name="secret key" />} />
      <KeyRow name="service_role key (legacy)" hint="The JWT form of the secret key. Revealing it is audited." value={<Secret kind="service_role" name="service_role key" />} />
    </section>
  );
}

function TableDocs({ table }: { table: string }) {
  const settings = useApiSettings();
  const relation = usePublicTable(table);
  if (relation.isPending) return <Loading />;
  if (relation.error) return <ErrorNote error={relation.error} />;
  const snippets = tableSnippets(relation.data, settings.data?.url ?? window.location.origin);
  return (
    <section aria-labelledby="table-title" className="flex flex-col gap-3 px-3 py-2">
      <h2 id="table-title" className="text-sm font-semibold">
        <span className="font-mono">public.{table}</span> with supabase-js
      </h2>
      {snippets.map((s) => (
        <div key={s.id}>
          <h3 className="mb-1 text-xs font-semibold tracking-wide text-slate-700 uppercase">{s.title}</h3>
          <Code code={s.code} label={`${s.title} of ${table}`} />
        </div>
      ))}
    </section>
  );
}

function Types() {
  const types = useTypes();
  if (types.isPending) return <Loading label="Generating the types…" />;
  if (types.error) return <ErrorNote error={types.error} />;
  return (
    <section aria-labelledby="types-title" className="flex flex-col gap-2 px-3 py-2">
      <h2 id="types-title" className="text-sm font-semibold">
        TypeScript types
      </h2>
      <p className="text-sm text-slate-700">
        What <code className="font-mono">server gen types typescript</code> prints for this database; save it as <code className="font-mono">database.types.ts</code>.
      </p>
      <Code code={types.data} label="Generated types" />
    </section>
  );
}

/** The API & keys screen: keys, the generated types, and each table's supabase-js calls. */
export function ApiScreen({ table }: { table?: string }) {
  const tables = usePublicTables();
  const [tab, setTab] = useState<'keys' | 'types'>('keys');
  return (
    <div className="grid h-full grid-cols-1 grid-rows-[auto_minmax(0,1fr)] md:grid-cols-[14rem_1fr] md:grid-rows-1">
      <nav aria-label="API pages" className="max-h-48 overflow-auto border-r border-slate-200 bg-white p-2 md:max-h-none">
        <ul className="flex flex-col gap-0.5 text-sm">
          <li>
            <Link to={paths.api()} aria-current={!table ? 'page' : undefined} className={`block rounded px-2 py-1 ${!table ? 'bg-emerald-100 font-medium text-emerald-900' : 'hover:bg-slate-100'}`}>
              Keys and types
            </Link>
          </li>
          <li className="px-2 pt-2 text-xs font-semibold text-slate-600 uppercase">Tables (public)</li>
          {tables.isPending && <li className="px-2 text-sm text-slate-600">Loading…</li>}
          {tables.data?.map((t) => (
            <li key={t.name}>
              <Link to={paths.api(t.name)} aria-current={t.name === table ? 'page' : undefined} className={`block truncate rounded px-2 py-1 ${t.name === table ? 'bg-emerald-100 font-medium text-emerald-900' : 'hover:bg-slate-100'}`}>
                {t.name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-h-0 overflow-auto bg-white">
        <header className="border-b border-slate-200 px-3 py-2">
          <h1 className="text-base font-semibold">API &amp; keys</h1>
        </header>
        {table ? (
          <TableDocs key={table} table={table} />
        ) : (
          <>
            <div role="tablist" aria-label="API sections" className="flex gap-1 border-b border-slate-200 px-3 pt-2">
              {(['keys', 'types'] as const).map((t) => (
                <button
                  key={t}
                  role="tab"
                  type="button"
                  aria-selected={tab === t}
                  className={`rounded-t-md px-3 py-1 text-sm ${tab === t ? 'border border-b-white border-slate-200 bg-white font-medium' : 'text-slate-700 hover:bg-slate-100'}`}
                  onClick={() => setTab(t)}
                >
                  {t === 'keys' ? 'URL and keys' : 'TypeScript types'}
                </button>
              ))}
            </div>
            {tab === 'keys' ? <Keys /> : <Types />}
          </>
        )}
      </div>
    </div>
  );
}
