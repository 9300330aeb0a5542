import { useState } from 'react';
import { useDeploy, useLastDeployedVersion, type DeployedFunction } from '../api/functions';
import { validPath, type EditedFile } from '../lib/functions';
import { CodeEditor } from './code-editor';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { ErrorNote } from '@/components/ui/states';

/** A function's files in tabs, its entry file and JWT switch, and Deploy (Ctrl/Cmd+S). */
export function FunctionEditor({ slug, deployed, initial }: { slug: string; deployed: DeployedFunction | null; initial: EditedFile[] }) {
  const deploy = useDeploy(slug);
  const lastDeployed = useLastDeployedVersion(slug);
  const justDeployed = deploy.data?.function.version ?? (lastDeployed === deployed?.version ? lastDeployed : undefined);
  const [files, setFiles] = useState<EditedFile[]>(initial);
  const [current, setCurrent] = useState(initial[0]?.path ?? 'index.ts');
  const [entry, setEntry] = useState(deployed?.entrypoint_path ?? initial[0]?.path ?? 'index.ts');
  const [verifyJwt, setVerifyJwt] = useState(deployed?.verify_jwt ?? true);
  const [newPath, setNewPath] = useState('');
  const [dirty, setDirty] = useState(!deployed);
  const file = files.find((f) => f.path === current);
  const pathOk = validPath(newPath.trim()) && !files.some((f) => f.path === newPath.trim());

  const run = () => {
    if (deploy.isPending) return;
    deploy.mutate({ slug, verify_jwt: verifyJwt, entrypoint_path: entry, files }, { onSuccess: () => setDirty(false) });
  };
  const edit = (content: string) => {
    setFiles((list) => list.map((f) => (f.path === current ? { ...f, content } : f)));
    setDirty(true);
  };
  const addFile = () => {
    const path = newPath.trim();
    setFiles((list) => [...list, { path, content: '' }]);
    setCurrent(path);
    setNewPath('');
    setDirty(true);
  };
  const removeFile = (path: string) => {
    const rest = files.filter((f) => f.path !== path);
    setFiles(rest);
    if (current === path) setCurrent(rest[0]?.path ?? '');
    setDirty(true);
  };

  return (
    <section aria-labelledby="editor-title" className="flex min-h-0 flex-col gap-2 p-3">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="editor-title" className="text-sm font-semibold">
          Code
        </h2>
        <p className="text-xs text-slate-600" data-testid="deployed-version">
          {deployed ? `Version ${deployed.version}, deployed ${new Date(deployed.updated_at).toLocaleString()}` : 'Not deployed yet'}
          {dirty && deployed ? ' · changed since' : ''}
        </p>
        <div className="ml-auto flex flex-wrap items-center gap-2">
          <label htmlFor="entry-file" className="text-xs text-slate-700">
            Entry file
          </label>
          <Select id="entry-file" className="w-40" value={entry} onChange={(e) => (setEntry(e.target.value), setDirty(true))}>
            {files.map((f) => (
              <option key={f.path} value={f.path}>
                {f.path}
              </option>
            ))}
          </Select>
          <label className="flex items-center gap-1 text-xs text-slate-700">
            <input type="checkbox" checked={verifyJwt} onChange={(e) => (setVerifyJwt(e.target.checked), setDirty(true))} /> Verify JWT
          </label>
          <Button variant="primary" onClick={run} disabled={deploy.isPending || !files.some((f) => f.path === entry)} title="Deploy (Ctrl+S)">
            {deploy.isPending ? 'Deploying…' : 'Deploy'}
          </Button>
        </div>
      </div>
      {deploy.error && <ErrorNote error={deploy.error} />}
      {justDeployed !== undefined && !dirty && (
        <p role="status" className="text-xs text-emerald-800">
          Deployed version {justDeployed}.
        </p>
      )}
      <div className="flex flex-wrap items-center gap-1 border-b border-slate-200" role="group" aria-label="Files">
        {files.map((f) => (
          <span key={f.path} className={`flex items-center rounded-t border border-b-0 ${f.path === current ? 'border-slate-300 bg-white' : 'border-transparent'}`}>
            <button type="button" aria-pressed={f.path === current} className="px-2 py-1 font-mono text-xs" onClick={() => setCurrent(f.path)}>
              {f.path}
            </button>
            {files.length > 1 && (
              <button type="button" aria-label={`Remove ${f.path}`} className="px-1 text-xs text-slate-600 hover:text-red-700" onClick={() => removeFile(f.path)}>
                ×
              </button>
            )}
          </span>
        ))}
        <form
          className="ml-2 flex items-center gap-1 py-1"
          onSubmit={(e) => {
            e.preventDefault();
            if (pathOk) addFile();
          }}
        >
          <Input aria-label="New file path" placeholder="lib/util.ts" className="h-7 w-36 text-xs" value={newPath} onChange={(e) => setNewPath(e.target.value)} />
          <Button type="submit" variant="ghost" disabled={!pathOk}>
            Add file
          </Button>
        </form>
      </div>
      <div className="h-80 min-h-0">
        {file ? (
          <CodeEditor docKey={`${slug}/${file.path}`} value={file.content} onChange={edit} onSave={run} label={`Source of ${file.path}`} />
        ) : (
          <p className="text-sm text-slate-600">Add a file.</p>
        )}
      </div>
    </section>
  );
}
