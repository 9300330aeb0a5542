import { useEffect, useState } from 'react';
import { Archive, ArchiveRestore, Mail, MailOpen, Reply } from 'lucide-react';
import { notify } from '@/lib/notify';
import { usePageTitle } from '@/components/ui/page';
import { Button } from '@/components/ui/button';
import { Form, TextAreaFormField, useZodForm } from '@/components/ui/form';
import { EmptyState, ErrorState, Spinner } from '@/components/ui/states';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/cn';
import { AdminHeader, RefreshButton } from '@/features/admin/components/admin-ui';
import { useArchive, useMarkRead, useMessages, useReply, type ContactMessage, type MessageBox } from '@/features/admin/api/messages';
import { messageSubjectLabels } from '@/features/admin/lib/labels';
import { replySchema, type ReplyValues } from '@/features/admin/schemas/reply-schema';

/** The contact and support messages: read, reply (mailed to the sender), archive. */
export default function AdminMessagesPage() {
  usePageTitle('Messages');
  const [box, setBox] = useState<MessageBox>('inbox');
  const [openId, setOpenId] = useState<string | null>(null);
  const q = useMessages(box);
  const list = q.data ?? [];
  const open = list.find((m) => m.id === openId) ?? null;

  return (
    <>
      <AdminHeader title="Messages" subtitle="Les messages des formulaires de contact et d'assistance">
        <RefreshButton query={q} />
      </AdminHeader>
      <div role="tablist" aria-label="Boîtes" className="mb-4 flex gap-1 border-b border-slate-200">
        {(
          [
            ['inbox', 'Boîte de réception'],
            ['archived', 'Archivés'],
          ] as const
        ).map(([key, label]) => (
          <button
            key={key}
            role="tab"
            aria-selected={box === key}
            onClick={() => {
              setBox(key);
              setOpenId(null);
            }}
            className={cn('border-b-2 px-4 py-2 text-sm font-semibold', box === key ? 'border-blue-900 text-blue-900' : 'border-transparent text-slate-700 hover:text-blue-900')}
          >
            {label}
          </button>
        ))}
      </div>
      {q.isPending ? (
        <Spinner label="Chargement des messages…" />
      ) : q.isError ? (
        <ErrorState message={q.error.message} onRetry={() => void q.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title={box === 'inbox' ? 'Aucun message.' : 'Aucun message archivé.'}>Les messages envoyés depuis les pages Contact et Assistance apparaissent ici.</EmptyState>
      ) : (
        <div className="grid gap-4 lg:grid-cols-5">
          <ul className="space-y-2 lg:col-span-2" aria-label="Liste des messages">
            {list.map((m) => (
              <li key={m.id}>
                <button
                  type="button"
                  onClick={() => setOpenId(m.id)}
                  data-testid="message-item"
                  aria-current={m.id === openId}
                  className={cn(
                    'w-full rounded-xl border bg-white p-4 text-left shadow-sm hover:border-blue-300',
                    m.id === openId ? 'border-blue-900 ring-2 ring-blue-900/20' : 'border-slate-200',
                  )}
                >
                  <span className="flex items-center justify-between gap-2">
                    <span className={cn('truncate text-blue-950', m.read_at ? 'font-medium' : 'font-extrabold')}>
                      {!m.read_at && <span className="mr-2 inline-block h-2 w-2 rounded-full bg-red-600" aria-label="Non lu" />}
                      {m.name}
                    </span>
                    <span className="shrink-0 text-xs text-slate-600">{formatDateTime(m.created_at)}</span>
                  </span>
                  <span className="mt-1 flex flex-wrap gap-2 text-xs">
                    <span className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-700">{messageSubjectLabels[m.subject] ?? m.subject}</span>
                    <span className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-700">{m.source === 'support' ? 'Assistance' : 'Contact'}</span>
                    {m.replied_at && <span className="rounded-full bg-green-100 px-2 py-0.5 text-green-800">Répondu</span>}
                  </span>
                  <span className="mt-2 line-clamp-2 block text-sm text-slate-700">{m.message}</span>
                </button>
              </li>
            ))}
          </ul>
          <div className="lg:col-span-3">{open ? <MessageDetail key={open.id} message={open} /> : <p className="text-slate-600">Choisissez un message pour le lire.</p>}</div>
        </div>
      )}
    </>
  );
}

function MessageDetail({ message: m }: { message: ContactMessage }) {
  const markRead = useMarkRead();
  const archive = useArchive();
  const reply = useReply();
  // the error shows when the reply is sent, and stays until it is sent again
  const form = useZodForm(replySchema, { mode: 'onSubmit', reValidateMode: 'onSubmit', defaultValues: { body: '' } });
  const { mutate: mark } = markRead;
  // opening a message marks it read
  useEffect(() => {
    if (!m.read_at) mark(m.id);
  }, [m.id, m.read_at, mark]);

  const send = ({ body }: ReplyValues) => {
    reply.mutate(
      { id: m.id, body },
      {
        onSuccess: () => {
          notify.success(`Réponse envoyée à ${m.email}`);
          form.reset();
        },
        onError: (e) => notify.error(e.message),
      },
    );
  };

  return (
    <article className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm" aria-label={`Message de ${m.name}`}>
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-xl font-bold text-blue-950">{messageSubjectLabels[m.subject] ?? m.subject}</h2>
          <p className="text-sm text-slate-700">
            {m.name} · <a className="text-blue-900 underline" href={`mailto:${m.email}`}>{m.email}</a>
            {m.phone && (
              <>
                {' '}· <a className="text-blue-900 underline" href={`tel:${m.phone.replace(/[^+\d]/g, '')}`}>{m.phone}</a>
              </>
            )}
          </p>
          <p className="text-xs text-slate-600">Reçu le {formatDateTime(m.created_at)}</p>
        </div>
        <Button
          variant="outline"
          onClick={() =>
            archive.mutate(
              { id: m.id, archived: !m.archived_at },
              { onSuccess: () => notify.success(m.archived_at ? 'Message remis dans la boîte de réception' : 'Message archivé'), onError: (e) => notify.error(e.message) },
            )
          }
          disabled={archive.isPending}
        >
          {m.archived_at ? <ArchiveRestore className="h-4 w-4" aria-hidden="true" /> : <Archive className="h-4 w-4" aria-hidden="true" />}
          {m.archived_at ? 'Désarchiver' : 'Archiver'}
        </Button>
      </header>
      <p className="mt-4 whitespace-pre-wrap text-slate-800" data-testid="message-body">{m.message}</p>
      {m.replied_at && m.reply && (
        <div className="mt-5 rounded-lg border border-green-200 bg-green-50 p-4" data-testid="message-reply">
          <p className="flex items-center gap-2 text-sm font-semibold text-green-900">
            <MailOpen className="h-4 w-4" aria-hidden="true" /> Réponse envoyée le {formatDateTime(m.replied_at)}
          </p>
          <p className="mt-2 whitespace-pre-wrap text-sm text-slate-800">{m.reply}</p>
        </div>
      )}
      <Form form={form} onValid={send} className="mt-5 space-y-3">
        <TextAreaFormField name="body" label={m.replied_at ? 'Répondre à nouveau' : 'Votre réponse'} rows={5} maxLength={5000} />
        <Button type="submit" disabled={reply.isPending}>
          {reply.isPending ? <Mail className="h-4 w-4" aria-hidden="true" /> : <Reply className="h-4 w-4" aria-hidden="true" />}
          {reply.isPending ? 'Envoi…' : `Envoyer la réponse à ${m.email}`}
        </Button>
      </Form>
    </article>
  );
}
