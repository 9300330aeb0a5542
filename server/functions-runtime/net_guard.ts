/**
 * Outbound connections to the SMTP ports 25 and 587 are refused, as Supabase's Edge Functions
 * refuse them (mail goes through an email API, or another port such as 465 or 2525).
 *
 * Two layers, because Deno's `--deny-net` takes no port without a host and no IPv6 range:
 * - `DENY_NET`, the `--deny-net` of every function's process (`supervisor.ts`): every IPv4
 *   address on those ports, checked by Deno itself after name resolution, for every API (fetch,
 *   `Deno.connect`, `Deno.connectTls`, `WebSocket`, `node:net`, npm packages over them); a worker
 *   inherits it whatever permissions it is given;
 * - `guardPorts`, run by the worker's bootstrap before the function loads: `Deno.connect`,
 *   `Deno.connectTls` and `WebSocket` to those ports refused by number, whatever the host (IPv6
 *   included), with a message that says why. `fetch` refuses them on its own (both are on the
 *   WHATWG fetch standard's list of bad ports).
 *
 * It only refuses; it decides nothing else about the network.
 */

/** The ports a function may not connect to. */
export const BLOCKED_PORTS: readonly number[] = [25, 587];

/** The `--deny-net` list of a function's process: every IPv4 address on each blocked port. */
export const DENY_NET = BLOCKED_PORTS.map((port) => `0.0.0.0/0:${port}`).join(",");

/** The error a refused connection throws. */
export function blockedPort(port: number): Error {
  return new Deno.errors.NotCapable(
    `Outgoing connections to port ${port} are not allowed in Edge Functions (ports ${
      BLOCKED_PORTS.join(" and ")
    } are blocked, as on Supabase): send mail through an email API or another SMTP port`,
  );
}

/** The port a URL or a connect option names, if it is a blocked one. */
export function blocked(port: unknown): number | null {
  const number = typeof port === "string" && port.trim() !== "" ? Number(port) : port;
  return typeof number === "number" && BLOCKED_PORTS.includes(number) ? number : null;
}

/** Refuse `Deno.connect`, `Deno.connectTls` and `WebSocket` to the blocked ports in this isolate. */
export function guardPorts(): void {
  const deno = Deno as unknown as Record<string, unknown>;
  for (const name of ["connect", "connectTls"]) {
    const original = deno[name] as ((options: { port?: unknown }) => Promise<unknown>) | undefined;
    if (typeof original !== "function") continue;
    deno[name] = function (this: unknown, options: { port?: unknown }) {
      const port = blocked(options?.port);
      if (port !== null) return Promise.reject(blockedPort(port));
      return original.call(this, options);
    };
  }
  const Original = globalThis.WebSocket;
  if (typeof Original !== "function") return;
  class GuardedWebSocket extends Original {
    constructor(url: string | URL, protocols?: ConstructorParameters<typeof WebSocket>[1]) {
      let port: number | null = null;
      try {
        port = blocked(new URL(String(url)).port);
      } catch { /* the constructor below says what is wrong with the URL */ }
      if (port !== null) throw blockedPort(port);
      super(url, protocols);
    }
  }
  Object.defineProperty(GuardedWebSocket, "name", { value: "WebSocket" });
  globalThis.WebSocket = GuardedWebSocket;
}
