/**
 * The main script of one function's own Deno process, started by the supervisor
 * (`supervisor.ts`): it reads its options (one JSON line on standard input), boots the function's
 * worker, then serves the function's router on a loopback port, printed as `{"listening": port}`
 * once the worker is ready (or failed to boot: the first request then gets the boot failure).
 *
 * A spare process (started ahead of need, before any function is known: options without
 * `preload`) prints its port at once, then waits for a second line, its `Assignment`: the
 * function it serves from then on, whose worker gets that function's narrowed read permissions
 * (`deno.permissions`) instead of the process's wider ones. Requests wait for the assignment.
 *
 * It decides nothing: the router (`router.ts`) runs the requests and watches this process's CPU
 * time and memory; the supervisor starts and ends the process.
 * It ends when its standard input closes (the supervisor is gone), or, once told to drain (a line
 * `{"drain":true}`: the supervisor retired it), when no request is in flight: the server may send
 * requests straight to this process's port (`x-functions-direct`), which the supervisor does not
 * see, so the process itself waits for them.
 */

import {
  createRouter,
  firstLine,
  LIMIT_EXIT,
  type LimitKind,
  nextLine,
  type Router,
  type RouterOptions,
} from "./router.ts";

/** What the supervisor writes on standard input. */
export interface HostOptions extends RouterOptions {
  /** The function booted before the port is printed; absent for a spare process. */
  preload?: { entrypoint: string; version: string; name?: string };
}

/** The second line a spare process reads: the function it serves, its read permissions and secrets. */
export interface Assignment {
  entrypoint: string;
  version: string;
  name?: string;
  /** The folders its worker may read (with /tmp). */
  readPaths: string[];
  secrets: Record<string, string>;
}

/** How often a draining process looks for the end of its last request. */
const DRAIN_POLL_MS = 20;
/** How long a process stopped at a limit lets its router's answers (546) leave before it ends. */
const LIMIT_EXIT_DELAY_MS = 100;

/** A worker was stopped at its CPU-time or memory limit: the process ends, telling which by its exit code. */
function endAtLimit(kind: LimitKind): void {
  // The supervisor sends this function's next requests to a new process from now on.
  console.log(JSON.stringify({ ending: kind }));
  setTimeout(() => Deno.exit(LIMIT_EXIT[kind]), LIMIT_EXIT_DELAY_MS);
}

/** Follow the supervisor's later lines: `{"drain":true}` ends the process once `inFlight()` is 0. */
async function follow(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  buffered: string,
  inFlight: () => number,
): Promise<void> {
  for (;;) {
    const next = await nextLine(reader, buffered);
    buffered = next.buffered;
    if (next.line === "" && buffered === "") {
      // Standard input closed (nextLine gives the text left, here none): the supervisor is gone.
      const { done } = await reader.read().catch(() => ({ done: true }));
      if (done) Deno.exit(0);
      continue;
    }
    let drain = false;
    try {
      drain = JSON.parse(next.line)?.drain === true;
    } catch { /* not a command */ }
    if (drain) {
      const check = () => {
        if (inFlight() === 0) Deno.exit(0);
      };
      check();
      setInterval(check, DRAIN_POLL_MS);
    }
  }
}

function listen(handler: (req: Request) => Promise<Response>): void {
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ listening: port })),
  }, handler);
}

if (import.meta.main) {
  const first = await firstLine(Deno.stdin.readable);
  let { rest } = first;
  const options: HostOptions = JSON.parse(first.line);
  let inFlight = () => 0;
  let buffered = first.buffered;
  if (options.preload) {
    const router = createRouter({ ...options, lanes: true, onLimit: endAtLimit });
    inFlight = router.inFlight;
    await router.preload(options.preload.entrypoint, options.preload.version, options.preload.name);
    listen(router);
  } else {
    let assigned!: (router: Router) => void;
    const ready = new Promise<Router>((resolve) => (assigned = resolve));
    listen(async (req) => (await ready)(req));
    const next = await nextLine(rest, first.buffered);
    rest = next.rest;
    buffered = next.buffered;
    if (next.line) {
      const assignment: Assignment = JSON.parse(next.line);
      // Relative paths (a function's static files) start from the function's folder.
      try {
        Deno.chdir(decodeURIComponent(new URL(".", assignment.entrypoint).pathname));
      } catch (err) {
        console.error(`function ${assignment.name ?? assignment.entrypoint}: cannot enter its folder: ${err}`);
      }
      const router = createRouter({
        ...options,
        readPaths: assignment.readPaths,
        secrets: assignment.secrets,
        inheritPermissions: false,
        lanes: true,
        onLimit: endAtLimit,
      });
      router.preload(assignment.entrypoint, assignment.version, assignment.name);
      inFlight = router.inFlight;
      assigned(router);
    } else Deno.exit(0);
  }
  await follow(rest, buffered, () => inFlight());
}
