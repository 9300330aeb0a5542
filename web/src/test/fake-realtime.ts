/**
 * An in-memory stand-in for /realtime/v1 for the Vitest tests of the live queries: installed as
 * the global WebSocket before the supabase client is created, it lets the real supabase-js and
 * realtime-js run their protocol (Phoenix v2 JSON frames: [join_ref, ref, topic, event, payload])
 * against it. It answers joins (echoing the postgres_changes bindings with ids, as Realtime
 * does), leaves and heartbeats, records what the client sent, and pushes row changes.
 */

type Frame = [string | null, string | null, string, string, Record<string, unknown>];

interface Binding {
  id: number;
  event: string;
  schema: string;
  table?: string;
  filter?: string;
}

export class FakeRealtime {
  /** Every frame the client sent, in order. */
  readonly sent: Frame[] = [];
  /** The URLs the client connected to. */
  readonly urls: string[] = [];
  private sockets = new Set<FakeSocket>();
  private topics = new Map<string, { socket: FakeSocket; bindings: Binding[] }>();
  private nextId = 1;

  /** The class to install as `WebSocket`. */
  readonly WebSocket: new (url: string | URL) => FakeSocket;

  constructor() {
    const server = this;
    this.WebSocket = class extends FakeSocket {
      constructor(url: string | URL) {
        super(server, String(url));
      }
    };
  }

  /** The join frames the client sent. */
  joins(): Frame[] {
    return this.sent.filter((f) => f[3] === 'phx_join');
  }

  /** Frames of `event` sent for `topic`. */
  framesOf(topic: string, event: string): Frame[] {
    return this.sent.filter((f) => f[2] === topic && f[3] === event);
  }

  /** The topics joined and not left. */
  joinedTopics(): string[] {
    return [...this.topics.keys()];
  }

  /** Sends a row change to every joined topic with a binding on `table` (like Realtime, after its own checks). */
  change(table: string, type: 'INSERT' | 'UPDATE' | 'DELETE', record: Record<string, unknown>, oldRecord: Record<string, unknown> = {}): void {
    for (const [topic, { socket, bindings }] of this.topics) {
      const ids = bindings.filter((b) => b.schema === 'public' && (b.table === undefined || b.table === table) && (b.event === '*' || b.event === type)).map((b) => b.id);
      if (!ids.length) continue;
      socket.deliver([
        null,
        null,
        topic,
        'postgres_changes',
        {
          ids,
          data: {
            schema: 'public',
            table,
            commit_timestamp: new Date().toISOString(),
            type,
            columns: [
              { name: 'id', type: 'uuid' },
              { name: 'total_amount', type: 'numeric' },
            ],
            record: type === 'DELETE' ? null : record,
            old_record: type === 'INSERT' ? null : oldRecord,
            errors: null,
          },
        },
      ]);
    }
  }

  /** @internal */
  attach(socket: FakeSocket): void {
    this.sockets.add(socket);
    this.urls.push(socket.url);
  }

  /** @internal */
  detach(socket: FakeSocket): void {
    this.sockets.delete(socket);
    for (const [topic, t] of this.topics) if (t.socket === socket) this.topics.delete(topic);
  }

  /** @internal what the server does with a client frame. */
  receive(socket: FakeSocket, frame: Frame): void {
    this.sent.push(frame);
    const [joinRef, ref, topic, event, payload] = frame;
    const reply = (response: Record<string, unknown>) => socket.deliver([joinRef, ref, topic, 'phx_reply', { status: 'ok', response }]);
    if (topic === 'phoenix' && event === 'heartbeat') return reply({});
    if (event === 'phx_join') {
      const config = (payload.config ?? {}) as { postgres_changes?: Omit<Binding, 'id'>[] };
      const bindings = (config.postgres_changes ?? []).map((b) => ({ ...b, id: this.nextId++ }));
      this.topics.set(topic, { socket, bindings });
      return reply({ postgres_changes: bindings });
    }
    if (event === 'phx_leave') {
      this.topics.delete(topic);
      return reply({});
    }
  }
}

class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;

  readyState = 0;
  binaryType = 'arraybuffer';
  bufferedAmount = 0;
  timeout = 0;
  onopen: ((e: unknown) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;

  constructor(
    private readonly server: FakeRealtime,
    readonly url: string,
  ) {
    server.attach(this);
    setTimeout(() => {
      if (this.readyState !== 0) return;
      this.readyState = 1;
      this.onopen?.({});
    }, 0);
  }

  send(data: string | ArrayBuffer): void {
    if (typeof data !== 'string') return; // binary frames: broadcasts only, not used here
    this.server.receive(this, JSON.parse(data) as Frame);
  }

  close(code = 1000, reason = ''): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.server.detach(this);
    setTimeout(() => this.onclose?.({ code, reason, wasClean: true }), 0);
  }

  /** @internal a frame from the server, delivered asynchronously as a network would. */
  deliver(frame: Frame): void {
    setTimeout(() => {
      if (this.readyState === 1) this.onmessage?.({ data: JSON.stringify(frame) });
    }, 0);
  }
}
