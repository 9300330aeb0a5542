import { useState } from 'react';
import { useRevokeKey, useRotateKey, useSigningKeys, type SigningKey } from '../api/auth-config';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, Loading } from '@/components/ui/states';

const TONES: Record<string, string> = {
  current: 'bg-emerald-100 text-emerald-900',
  standby: 'bg-sky-100 text-sky-900',
  previous: 'bg-slate-200 text-slate-800',
  revoked: 'bg-red-100 text-red-900',
};

function RevokeDialog({ target, onClose }: { target: SigningKey | null; onClose: () => void }) {
  const revoke = useRevokeKey();
  return (
    <Dialog open={!!target} title="Revoke this key" onClose={onClose}>
      <div className="flex flex-col gap-3">
        <p className="text-sm text-slate-700">
          Revoke <span className="font-mono">{target?.id}</span>? Access tokens it signed stop verifying everywhere, and it leaves the JWKS.
        </p>
        {revoke.error && <ErrorNote error={revoke.error} />}
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" disabled={revoke.isPending} onClick={() => target && revoke.mutate(target.id, { onSuccess: onClose })}>
            Revoke key
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

/** Auth → Signing keys: the keys of access tokens, their rotation and revocation, and the JWKS. */
export function SigningKeysScreen() {
  const keys = useSigningKeys();
  const rotate = useRotateKey();
  const [target, setTarget] = useState<SigningKey | null>(null);
  const [note, setNote] = useState<string | null>(null);
  return (
    <div className="flex h-full min-h-0 flex-col overflow-auto bg-white">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 px-3 py-2">
        <div className="flex-1">
          <h1 className="text-base font-semibold">Signing keys</h1>
          <p className="text-sm text-slate-700">The current key signs new access tokens; previous and standby keys still verify. Revoke a key to make the tokens it signed invalid.</p>
        </div>
        <Button variant="primary" disabled={rotate.isPending} onClick={() => rotate.mutate(undefined, { onSuccess: (r) => setNote(`Key ${r.id} now signs new tokens.`) })}>
          Rotate keys
        </Button>
      </header>
      <p role="status" className="px-3 pt-2 text-sm text-slate-700">
        {note}
      </p>
      {rotate.error && <ErrorNote error={rotate.error} />}
      {keys.isPending ? (
        <Loading />
      ) : keys.error ? (
        <ErrorNote error={keys.error} />
      ) : (
        <>
          <div className="overflow-x-auto px-3 py-2" tabIndex={0} role="region" aria-label="Signing keys (scrollable)">
            <table className="w-full text-[13px]">
              <caption className="sr-only">Signing keys, newest first</caption>
              <thead className="bg-slate-100 text-left">
                <tr>
                  {['Key id (kid)', 'Algorithm', 'Status', 'Created (UTC)', ''].map((h) => (
                    <th key={h} scope="col" className="px-2 py-1 whitespace-nowrap">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((k) => (
                  <tr key={k.id} className="border-t border-slate-100">
                    <td className="px-2 py-1 font-mono">{k.id}</td>
                    <td className="px-2 py-1">{k.algorithm}</td>
                    <td className="px-2 py-1">
                      <span className={`rounded px-1.5 text-xs ${TONES[k.status] ?? ''}`}>{k.status}</span>
                    </td>
                    <td className="px-2 py-1 whitespace-nowrap">{k.created_at}</td>
                    <td className="px-2 py-1 text-right">
                      {k.status === 'previous' || k.status === 'standby' ? (
                        <Button variant="ghost" onClick={() => setTarget(k)} aria-label={`Revoke key ${k.id}`}>
                          Revoke
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <section aria-labelledby="jwks-title" className="px-3 py-2">
            <h2 id="jwks-title" className="text-sm font-semibold">
              JWKS <span className="font-normal text-slate-600">(served at /auth/v1/.well-known/jwks.json, {keys.data.jwks.keys.length} keys)</span>
            </h2>
            <pre aria-label="JWKS" tabIndex={0} className="mt-1 max-h-80 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-xs">
              {JSON.stringify(keys.data.jwks, null, 2)}
            </pre>
          </section>
        </>
      )}
      <RevokeDialog target={target} onClose={() => setTarget(null)} />
    </div>
  );
}
