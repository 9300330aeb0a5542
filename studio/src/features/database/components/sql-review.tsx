import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { databaseKeys } from '../api/database';
import { Button } from '@/components/ui/button';
import { ErrorNote } from '@/components/ui/states';

type Answer = { sql: string; applied: boolean };

/**
 * The SQL a Database form will run, asked of the server with `dry_run` whenever the form's
 * input (`inputKey`) changes, then Run SQL. `send(true)` previews, `send(false)` runs; `send` is
 * null while the form is not valid yet. The Database lists are read again after a run.
 */
export function SqlReview({
  send,
  inputKey,
  danger = false,
  onDone,
  testId,
}: {
  send: ((dryRun: boolean) => Promise<Answer>) | null;
  inputKey: string;
  danger?: boolean;
  onDone: () => void;
  testId: string;
}) {
  const qc = useQueryClient();
  const [preview, setPreview] = useState<{ sql: string } | { error: string } | null>(null);
  const [running, setRunning] = useState(false);
  const [runError, setRunError] = useState<unknown>(null);
  useEffect(() => {
    if (!send) {
      setPreview(null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      send(true).then(
        (out) => live && setPreview({ sql: out.sql }),
        (err: unknown) => live && setPreview({ error: err instanceof Error ? err.message : 'Could not build the SQL' }),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // `send` is rebuilt on each render; the input it closes over is `inputKey`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [inputKey, send === null]);
  const run = async () => {
    if (!send) return;
    setRunning(true);
    setRunError(null);
    try {
      await send(false);
      await qc.invalidateQueries({ queryKey: databaseKeys.all });
      onDone();
    } catch (err) {
      setRunError(err);
    } finally {
      setRunning(false);
    }
  };
  return (
    <div className="flex flex-col gap-2">
      <div>
        <p className="text-xs font-medium text-slate-700">Review the SQL</p>
        {preview && 'sql' in preview && (
          <pre className="mt-1 overflow-auto whitespace-pre-wrap rounded bg-slate-900 p-2 font-mono text-xs text-slate-100" data-testid={testId}>
            {preview.sql}
          </pre>
        )}
        {preview && 'error' in preview && <ErrorNote error={new Error(preview.error)} />}
        {!preview && <p className="mt-1 text-xs text-slate-600">Fill in the form to see its SQL.</p>}
      </div>
      {runError !== null && <ErrorNote error={runError} />}
      <div className="flex justify-end gap-2">
        <Button onClick={onDone}>Cancel</Button>
        <Button variant={danger ? 'danger' : 'primary'} disabled={running || !send || !preview || 'error' in preview} onClick={() => void run()}>
          {running ? 'Running…' : 'Run SQL'}
        </Button>
      </div>
    </div>
  );
}
