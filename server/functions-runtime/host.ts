/**
 * The main script of one function's own Deno process, started by the supervisor
 * (`supervisor.ts`) with that function's permissions and heap limit: it reads its options (one
 * JSON line on standard input), boots the function's worker, then serves the function's router
 * on a loopback port, printed as `{"listening": port}` once the worker is ready (or failed to
 * boot: the first request then gets the boot failure).
 *
 * It decides nothing: the router (`router.ts`) runs the requests and watches this process's CPU
 * time and memory; the supervisor starts and ends the process.
 * It ends when its standard input closes (the supervisor is gone).
 */

import { createRouter, firstLine, type RouterOptions } from "./router.ts";

/** What the supervisor writes on standard input. */
export interface HostOptions extends RouterOptions {
  /** The function booted before the port is printed. */
  preload: { entrypoint: string; version: string; name?: string };
}

if (import.meta.main) {
  const { line, rest } = await firstLine(Deno.stdin.readable);
  const options: HostOptions = JSON.parse(line);
  const router = createRouter(options);
  await router.preload(options.preload.entrypoint, options.preload.version, options.preload.name);
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ listening: port })),
  }, router);
  while (!(await rest.read()).done) { /* nothing else is sent */ }
  Deno.exit(0);
}
