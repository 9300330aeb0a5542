"""Helpers shared by the `make bench-*` scripts."""
import base64
import hashlib
import hmac
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid


def pg_bin(name):
    """The newest installed PostgreSQL's `name` (psql, pgbench, ...), else the one on PATH."""
    for version in sorted(os.listdir("/usr/lib/postgresql"), reverse=True):
        path = f"/usr/lib/postgresql/{version}/bin/{name}"
        if os.path.exists(path):
            return path
    return shutil.which(name) or name


def yielding(nice):
    """subprocess keyword arguments that start a load generator yielding the cores to the server
    and Postgres, as a client on another machine would: at `nice`, in a session of its own whose
    scheduling group (the kernel's autogroup, on by default: processes are grouped by session
    and the groups share the cores fairly, whatever their members' nice) has that nice too.
    A nice value alone acts only within the load generator's group, which was the bench's own,
    with the server in it: the server and the load generator then shared half of the cores
    against Postgres's group, whose backends waited up to 230 ms for a core (`perf sched
    latency`) and made the p99. `nice` 0: no change (the load generator competes as any process)."""
    if nice == 0:
        return {}

    def child():
        os.nice(nice)
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write(str(nice))
        except OSError:
            pass  # a kernel without autogroups: the nice value is enough

    return {"start_new_session": True, "preexec_fn": child}


def wait_backups_idle(limit=180):
    """Wait until no pgBackRest process runs (for at most `limit` seconds): a freshly started
    server takes its first full backup and archives the WAL of its start with pgBackRest (backups
    are on by default), a few seconds of both cores that the steady state does not spend. The
    measured runs start after them, as a server in service has long taken its first backup;
    returns the seconds waited, which the scripts print."""
    started = time.time()
    quiet_since = None
    while time.time() - started < limit:
        busy = subprocess.run(["pgrep", "-x", "pgbackrest"], capture_output=True).returncode == 0
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.time()
        elif time.time() - quiet_since >= 2:
            break
        time.sleep(0.25)
    return time.time() - started


def ensure_wrk():
    """Install wrk from Debian's packages when it is missing (the HTTP benchmarks drive it)."""
    if shutil.which("wrk"):
        return
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, capture_output=True)
    if not shutil.which("wrk"):
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)


def headers_lua(headers):
    """wrk Lua lines setting these request headers."""
    return "".join(f'wrk.headers["{k}"] = "{v}"\n' for k, v in headers.items())


def cpu_seconds(pids):
    """{pid: user plus system CPU seconds used so far} for those of `pids` still running."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return out


def cpu_used(before, after):
    """CPU seconds used between two `cpu_seconds` readings (a process started since counts whole)."""
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())


def cluster_pids(data):
    """The postmaster of the embedded cluster under `data` (first line of postmaster.pid), then its
    children."""
    with open(os.path.join(data, "postgres", "postmaster.pid")) as f:
        master = int(f.readline())
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == master:
                        children.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return [master] + children


def cluster_cpu_seconds(data):
    """CPU seconds the cluster under `data` has used so far: what its live processes have used, plus
    what the postmaster has collected from the children it reaped (the backends of connections that
    have closed, such as pgbench's), so a difference of two readings spans both."""
    pids = cluster_pids(data)
    tick = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pids[0]}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    reaped = (int(fields[13]) + int(fields[14])) / tick
    return reaped + sum(cpu_seconds(pids).values())


def wait_cluster_quiet(data, limit=120, share=0.03):
    """Wait until the cluster under `data` uses less than `share` of a core over a second (for at
    most `limit` seconds): what a measured run left behind (autovacuum of the rows it wrote, the
    request log's last rows, WAL archiving) lands in the next run's CPU otherwise, the twin's as
    much as the server's. Returns the seconds waited, which the scripts print."""
    started = time.time()
    before = cluster_cpu_seconds(data)
    while time.time() - started < limit:
        time.sleep(1)
        now = cluster_cpu_seconds(data)
        if now - before < share:
            break
        before = now
    return time.time() - started


def field_kb(path, name):
    """A `name: N kB` field of a /proc file (status, smaps_rollup); 0 once the process ended."""
    try:
        with open(path) as f:
            m = re.search(rf"^{name}:\s+(\d+) kB", f.read(), re.M)
        return int(m.group(1)) if m else 0
    except OSError:
        return 0


def v2_token(session_id, key, counter=0):
    """A refresh token of algorithm 2 (GoTrue's format): version 0, the session id, the counter as a
    varint, 16 bytes of HMAC-SHA-256 under the session's key, 4 of SHA-256 as a checksum; base64url."""
    body = bytes([0]) + uuid.UUID(session_id).bytes
    while True:
        low, counter = counter & 0x7F, counter >> 7
        body += bytes([low | (0x80 if counter else 0)])
        if not counter:
            break
    body += hmac.new(base64.b64decode(key), body, hashlib.sha256).digest()[:16]
    body += hashlib.sha256(body).digest()[:4]
    return base64.urlsafe_b64encode(body).rstrip(b"=").decode()


def v2_sessions_sql(user_id, count):
    """SQL making `count` sessions of refresh-token algorithm 2 for `user_id`, each at counter 0
    with its own key, returning `<id> <key>` lines for `v2_token`."""
    return ("insert into auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at, refresh_token_hmac_key, "
            f"refresh_token_counter) select gen_random_uuid(), '{user_id}', now(), now(), 'aal1', "
            "now() at time zone 'utc', encode(extensions.gen_random_bytes(32), 'base64'), 0 "
            f"from generate_series(1, {count}) returning id || ' ' || refresh_token_hmac_key")


def token_pool_lua(path, threads):
    """wrk Lua: each of `threads` threads keeps its own share of the lines of `path` in `tokens`
    (and a cursor `idx`), so that no two threads send the same token."""
    return f'''local counter = 0
function setup(thread) counter = counter + 1; thread:set("tid", counter) end
function init(args)
  tokens = {{}}
  local n = 0
  for line in io.lines("{path}") do
    n = n + 1
    if n % {threads} == (tid or 1) - 1 then tokens[#tokens + 1] = line end
  end
  idx = 0
end
'''


def refresh_lua(path, threads):
    """wrk Lua: refresh grants, each with the next unused refresh token of the thread's share."""
    return 'wrk.method = "POST"\n' + token_pool_lua(path, threads) + '''function request()
  idx = idx % #tokens + 1
  return wrk.format(nil, nil, nil, '{"refresh_token":"' .. tokens[idx] .. '"}')
end
'''


def chain_lua(path, threads, conns, pattern, header=None):
    """wrk Lua: refreshes in chains of rotations. The first `conns` lines of `path` are the chains'
    first tokens, shared out among the `threads` threads; each request presents a token the
    previous answer returned (read from the body with the Lua `pattern`), in the JSON body as
    `refresh_token`, or in the header `header` when given. Each connection has one request in
    flight, so a thread's queue holds a token for each of its connections, and one more: wrk asks
    one of its threads for a request more than it has connections (seen: the first thread's queue
    ran dry at once, and one chain in sixteen was all 400s), so `path` must hold `conns + threads`
    lines. An answer without a token ends that chain (its next request carries an invalid token
    and counts as non-2xx)."""
    if header:
        send = ("local headers = {}; for k, v in pairs(wrk.headers) do headers[k] = v end; "
                f"headers['{header}'] = token; return wrk.format(nil, nil, headers, '{{}}')")
    else:
        send = "return wrk.format(nil, nil, nil, '{\"refresh_token\":\"' .. token .. '\"}')"
    return ('''wrk.method = "POST"
local counter = 0
function setup(thread) counter = counter + 1; thread:set("tid", counter) end
function init(args)
  queue = {}
  local n = 0
  for line in io.lines("PATH") do
    n = n + 1
    if n > CONNS + THREADS then break end
    if n % THREADS == (tid or 1) - 1 then queue[#queue + 1] = line end
  end
end
function request()
  local token = table.remove(queue, 1) or "chain-broken"
  SEND
end
function response(status, headers, body)
  local token = string.match(body, 'PATTERN')
  if token then queue[#queue + 1] = token end
end
'''.replace("PATH", path).replace("CONNS", str(conns)).replace("THREADS", str(threads))
            .replace("SEND", send).replace("PATTERN", pattern))


def start_seeded_server(server, root, data, env, ready):
    """`server seed`, then the server itself (its log in `data`/server.log): the process and its
    anon and service_role keys once `ready()` is true (polled for up to 30 s); exits on failure."""
    seeded = subprocess.run([server, "seed"], env=env, cwd=root, capture_output=True, text=True)
    if seeded.returncode:
        sys.exit(f"`server seed` failed:\n{seeded.stderr[-2000:]}")
    log = open(os.path.join(data, "server.log"), "w")
    proc = subprocess.Popen([server], env=env, cwd=root, stdout=subprocess.PIPE, stderr=log, text=True)
    keys = {}
    while "service_role key" not in keys:
        line = proc.stdout.readline()
        if not line:
            sys.exit("the server did not start:\n" + open(log.name).read()[-2000:])
        m = re.match(r"(anon key|service_role key): (\S+)", line)
        if m:
            keys[m.group(1)] = m.group(2)
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    for _ in range(300):
        if ready():
            return proc, keys["anon key"], keys["service_role key"]
        time.sleep(0.1)
    sys.exit("the server never became ready:\n" + open(log.name).read()[-2000:])
