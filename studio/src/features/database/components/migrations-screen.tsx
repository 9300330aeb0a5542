import { useMigrations } from '../api/database';
import { formatVersionTime } from '../lib/format';
import { DatabaseLayout, Scroll, td, th } from './database-layout';
import { Empty, ErrorNote, Loading } from '@/components/ui/states';

/** Database › Migrations: the project's applied migrations (`supabase/migrations`) and the platform's own. */
export function MigrationsScreen() {
  const migrations = useMigrations();
  return (
    <DatabaseLayout title="Migrations">
      {migrations.isPending && <Loading />}
      {migrations.error && <ErrorNote error={migrations.error} />}
      {migrations.data && (
        <Scroll label="Migrations (scrollable)">
          <section aria-labelledby="project-migrations" className="border-b border-slate-200">
            <h2 id="project-migrations" className="bg-slate-50 px-3 py-1.5 text-sm font-semibold">
              Project ({migrations.data.project?.length ?? 0}) <span className="font-normal text-slate-600">· supabase_migrations.schema_migrations</span>
            </h2>
            {!migrations.data.project || migrations.data.project.length === 0 ? (
              <Empty>No project migration applied yet (<code>server db push</code> applies the project's <code>supabase/migrations</code>).</Empty>
            ) : (
              <table className="w-full text-[13px]">
                <caption className="sr-only">The project's applied migrations, oldest first</caption>
                <thead className="bg-slate-100 text-left">
                  <tr>
                    <th scope="col" className={th}>Version</th>
                    <th scope="col" className={th}>Name</th>
                    <th scope="col" className={th}>Timestamp</th>
                    <th scope="col" className={`${th} text-right`}>Statements</th>
                  </tr>
                </thead>
                <tbody>
                  {migrations.data.project.map((m) => (
                    <tr key={m.version} className="border-b border-slate-200 bg-white">
                      <td className={`${td} font-mono`}>{m.version}</td>
                      <td className={td}>{m.name}</td>
                      <td className={td}>{formatVersionTime(m.version) ?? ''}</td>
                      <td className={`${td} text-right`}>{m.statements}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section aria-labelledby="platform-migrations">
            <h2 id="platform-migrations" className="bg-slate-50 px-3 py-1.5 text-sm font-semibold">
              Platform ({migrations.data.platform.length}) <span className="font-normal text-slate-600">· the server's own schema, embedded in the binary</span>
            </h2>
            <table className="w-full text-[13px]">
              <caption className="sr-only">The platform's applied migrations, oldest first</caption>
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th scope="col" className={th}>Version</th>
                  <th scope="col" className={th}>Name</th>
                  <th scope="col" className={th}>Applied</th>
                </tr>
              </thead>
              <tbody>
                {migrations.data.platform.map((m) => (
                  <tr key={m.version} className="border-b border-slate-200 bg-white">
                    <td className={`${td} font-mono`}>V{m.version}</td>
                    <td className={td}>{m.name.replaceAll('_', ' ')}</td>
                    <td className={`${td} whitespace-nowrap`}>{m.applied_on?.replace('T', ' ').slice(0, 19) ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </Scroll>
      )}
    </DatabaseLayout>
  );
}
