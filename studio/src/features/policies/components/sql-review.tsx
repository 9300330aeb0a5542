import { useQuery } from '@tanstack/react-query';
import { previewWrite, useApplyWrite, type PolicyWrite } from '../api/policies';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, Loading } from '@/components/ui/states';

/** A write's SQL, as the server built it, shown before it runs; "Run" runs that very write. */
export function SqlReview({ write, schema, onClose, onDone }: { write: PolicyWrite | null; schema: string; onClose: () => void; onDone?: () => void }) {
  const preview = useQuery({ queryKey: ['policies', 'preview', write], queryFn: () => previewWrite(write!), enabled: !!write, gcTime: 0, retry: false });
  const apply = useApplyWrite(schema);
  return (
    <Dialog open={!!write} title="Review the SQL" onClose={onClose}>
      {preview.isPending && <Loading label="Building the SQL…" />}
      {preview.error && <ErrorNote error={preview.error} />}
      {preview.data && (
        <pre role="region" aria-label="SQL to run" tabIndex={0} className="mb-3 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs whitespace-pre-wrap text-slate-100">
          {preview.data.sql}
        </pre>
      )}
      {apply.error && <ErrorNote error={apply.error} />}
      <div className="flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button
          variant="primary"
          disabled={!preview.data || apply.isPending}
          onClick={() =>
            apply.mutate(write!, {
              onSuccess: () => {
                apply.reset();
                onClose();
                onDone?.();
              },
            })
          }
        >
          Run SQL
        </Button>
      </div>
    </Dialog>
  );
}
