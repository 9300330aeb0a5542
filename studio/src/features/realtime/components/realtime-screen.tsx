import { useInspector, type JoinOptions } from '../api/inspector';
import { useMintToken } from '../api/realtime';
import { JoinFormView } from './join-form';
import { MessageLog } from './message-log';
import { SendPanel } from './send-panel';
import { ServerPanel } from './server-panel';
import { runAsOf, type Caller } from '@/components/ui/caller-picker';
import { ErrorNote } from '@/components/ui/states';

const STATUS_TEXT = { idle: 'Not joined', joining: 'Joining…', joined: 'Joined', closed: 'Left', error: 'Refused' } as const;

/** Realtime › Inspector: join a channel as a caller, watch its messages, send, and see the server's side. */
export function RealtimeScreen() {
  const inspector = useInspector();
  const mint = useMintToken();
  const joined = inspector.status === 'joined' || inspector.status === 'joining';

  const join = async (caller: Caller, options: JoinOptions) => {
    const runAs = runAsOf(caller);
    if (runAs === 'none') return;
    const token = await mint.mutateAsync(runAs);
    await inspector.join(token, options);
  };

  return (
    <div className="flex h-full flex-col">
      <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-white px-3 py-2">
        <h1 className="text-base font-semibold">
          <span className="font-normal text-slate-600">Realtime › </span>Inspector
        </h1>
        <p role="status" className="ml-auto text-sm" data-testid="inspector-status">
          <span className={inspector.status === 'joined' ? 'text-emerald-800' : inspector.status === 'error' ? 'text-red-700' : 'text-slate-700'}>
            {STATUS_TEXT[inspector.status]}
          </span>
          {mint.data && joined && (
            <span className="text-slate-600">
              {' '}
              as {mint.data.role}
              {mint.data.sub ? ` ${mint.data.sub.slice(0, 8)}` : ''}
            </span>
          )}
        </p>
      </header>
      <JoinFormView joined={joined} busy={mint.isPending} onJoin={(c, o) => void join(c, o)} onLeave={() => void inspector.leave()} />
      {mint.error && <ErrorNote error={mint.error} />}
      {inspector.error && <ErrorNote error={new Error(`The channel was refused: ${inspector.error}`)} />}
      <div className="grid min-h-0 flex-1 grid-cols-1 lg:grid-cols-[1fr_20rem]">
        <div className="flex min-h-[20rem] flex-col">
          <MessageLog messages={inspector.messages} paused={inspector.paused} onPause={inspector.togglePause} onClear={inspector.clear} />
        </div>
        <aside aria-label="Send and server" className="overflow-auto border-l border-slate-200 bg-white">
          <SendPanel joined={inspector.status === 'joined'} onSend={inspector.send} onTrack={inspector.track} />
          <ServerPanel />
        </aside>
      </div>
    </div>
  );
}
