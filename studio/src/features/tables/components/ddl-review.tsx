import { useQuery } from '@tanstack/react-query';
import { previewDdl, useApplyDdl, type Ddl } from '../api/structure';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, Loading } from '@/components/ui/states';

/** `sql` cut into plain text and the expressions written as the operator typed them. */
export function markExpressions(sql: string, expressions: string[]): { text: string; typed: boolean }[] {
  const parts: { text: string; typed: boolean }[] = [];
  let rest = sql;
  for (const e of expressions) {
    const at = rest.indexOf(`(${e})`);
    if (at < 0) continue;
    parts.push({ text: rest.slice(0, at + 1), typed: false }, { text: e, typed: true });
    rest = rest.slice(at + 1 + e.length);
  }
  parts.push({ text: rest, typed: false });
  return parts.filter((p) => p.text !== '');
}

/**
 * A structure change's SQL, as the server built it, shown before it runs; "Run SQL" runs that
 * very change (one transaction, audited). Expressions typed as SQL are marked.
 */
export function DdlReview({ ddl, title, onClose, onDone }: { ddl: Ddl | null; title?: string; onClose: () => void; onDone?: () => void }) {
  const preview = useQuery({ queryKey: ['ddl', 'preview', ddl], queryFn: () => previewDdl(ddl!), enabled: !!ddl, gcTime: 0, retry: false });
  const apply = useApplyDdl();
  const close = () => (apply.reset(), onClose());
  return (
    <Dialog open={!!ddl} title={title ?? 'Review the SQL'} onClose={close}>
      {preview.isPending && <Loading label="Building the SQL…" />}
      {preview.error && <ErrorNote error={preview.error} />}
      {preview.data && (
        <>
          <pre role="region" aria-label="SQL to run" tabIndex={0} className="mb-2 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs whitespace-pre-wrap text-slate-100">
            {markExpressions(preview.data.sql, preview.data.expressions).map((p, i) =>
              p.typed ? (
                <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-slate-900" title="An expression you typed, run as written">
                  {p.text}
                </mark>
              ) : (
                <span key={i}>{p.text}</span>
              ),
            )}
          </pre>
          {preview.data.expressions.length > 0 && (
            <p className="mb-2 text-xs text-slate-700">
              <mark className="rounded-sm bg-amber-200 px-0.5 text-slate-900">Marked</mark> parts are SQL expressions you typed: they run as written.
            </p>
          )}
        </>
      )}
      {apply.error && <ErrorNote error={apply.error} />}
      <div className="flex justify-end gap-2">
        <Button onClick={close}>Cancel</Button>
        <Button
          variant="primary"
          disabled={!preview.data || apply.isPending}
          onClick={() =>
            apply.mutate(ddl!, {
              onSuccess: () => {
                apply.reset();
                onClose();
                onDone?.();
              },
            })
          }
        >
          {apply.isPending ? 'Running…' : 'Run SQL'}
        </Button>
      </div>
    </Dialog>
  );
}
