#!/usr/bin/env python3
"""make bench-storage: /storage/v1 upload and download throughput beside a plain file copy.

Starts the release server on a fresh private cluster (file backend under its DATA_DIR), creates
a bucket with the service key, then:
  * uploads and downloads 1 MB and 100 MB objects and prints MB/s next to `cp` of the same bytes on
    the same disk, each step repeated BENCH_REPS times (5) and its median kept. `cp` (Python's
    copyfile) has the kernel copy the bytes (`sendfile`), so the client does too: it sends the
    file with `sendfile` and moves the answer into a new file with `splice`. The same transfers
    through the client's own reused 1 MB buffer, and the download with the bytes dropped, are
    printed in a second table. Every destination file, cp's or the client's, is a new file; each
    round's objects are deleted after it, as cp's destination is before each copy; each timed
    step starts after a `sync`, so that none pays for an earlier step's writeback;
  * runs 10 KB object uploads (each to a new name) and downloads for a fixed time with wrk
    (keep-alive, a few connections) and prints operations/s;
  * starts a second server with STORAGE_FILE_ETAG_ALGORITHM=mtime (no MD5 of the bytes) and
    repeats the 1 MB and 100 MB transfers;
  * uploads the same 100 MB resumably (TUS, 6 MB chunks, as Supabase's clients send them) and
    prints MB/s beside the plain single upload of the same round;
  * transforms a 2-megapixel PNG (1600 x 1250, made here) to 400 px WebP through /render/image,
    each request with another width (cold: decode, resize, encode) and one URL again and again
    (cached: read back from the object store), beside plain downloads of the source;
  * downloads the 100 MB object through the S3 protocol (GetObject, SigV4 signed here with an
    access key from `server keys s3-new`) beside the Supabase-protocol download of the same round;
  * samples the server's RSS during the 100 MB transfers and prints the peak (VmHWM), and the
    server's CPU time (user + system, /proc/PID/stat) per 100 MB upload and download of the main
    table: unlike MB/s, it does not move with what else the two cores are doing;
  * sets the same TCP congestion control on both ends of every transfer (BENCH_TCP_CONGESTION,
    `cubic` unless set; empty keeps the host's default): the server through its TCP_CONGESTION
    setting, the client on its sockets. Over loopback, `bbr`'s pacing, this VM's default, capped
    100 MB transfers near 1.3 GB/s whatever the server did (docs/storage.md);
  * sends the same 100 MB with the same client to a minimal receiver in this process (recv into
    one 1 MiB buffer, write a new file) and prints its MB/s beside `cp` and the mtime upload:
    the two copies any server's upload costs, and nothing else;
  * hashes 100 MB with MD5 in this process (hashlib: OpenSSL's, the server's implementation, one
    core) and prints its MB/s beside the md5 upload: with md5 ETags, the default, an upload goes
    no faster than that hash.
Not a test: it prints numbers.
"""
import filecmp, hashlib, http.client, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

from benchlib import ensure_wrk, headers_lua

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
PORT, DB_PORT = 54393, 54394
SMALL_SECONDS = float(os.environ.get("BENCH_SECONDS", 5))
SMALL_CONNS = int(os.environ.get("BENCH_CONNECTIONS", 8))
REPS = int(os.environ.get("BENCH_REPS", 5))
MB = 1024 * 1024
CONGESTION = os.environ.get("BENCH_TCP_CONGESTION", "cubic")


class Connection(http.client.HTTPConnection):
    """http.client with TCP_NODELAY: without it the client's own Nagle delay (headers, then the
    body) adds 40 ms to every 1 MB transfer, a client cost the server does not have. With the
    bench's congestion control, as the server's connections have it."""

    def connect(self):
        self.sock = client_socket((self.host, self.port), self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def with_congestion(sock):
    """`sock` with the bench's congestion control (none set when BENCH_TCP_CONGESTION is empty)."""
    if CONGESTION:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CONGESTION.encode())
    return sock


def client_socket(addr, timeout):
    """A connected TCP socket with the bench's congestion control, set before the connection
    starts: a socket that began with `bbr` keeps pacing its segments after a switch to `cubic`."""
    sock = with_congestion(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    sock.settimeout(timeout)
    sock.connect(addr)
    return sock


def chunks_of(f, size=MB):
    """A file's bytes as an iterable of views of one reused buffer: http.client sends each view
    (the Content-Length header is set), and no new 1 MB object is made per step."""
    buf = bytearray(size)
    view = memoryview(buf)
    while n := f.readinto(buf):
        yield view[:n]


def auth(key):
    return {"apikey": key, "Authorization": f"Bearer {key}"}


def request(method, path, key, body=None, headers=None, sink=None):
    # http.client sends a file body in `blocksize` steps (8 KiB by default, a client cost); a file
    # goes through `chunks_of` instead, so the client reads into one buffer it reuses.
    conn = Connection("127.0.0.1", PORT, timeout=300, blocksize=MB)
    h = {**auth(key), **(headers or {})}
    if hasattr(body, "readinto"):
        body = chunks_of(body)
    conn.request(method, "/storage/v1" + path, body=body, headers=h)
    res = conn.getresponse()
    if sink is None:
        data = res.read()
    else:
        # The same for the answer: read into one buffer, write the part read.
        data, buf = b"", bytearray(MB)
        view = memoryview(buf)
        while n := res.readinto(buf):
            sink.write(view[:n])
    conn.close()
    if res.status >= 300:
        sys.exit(f"{method} {path}: {res.status} {data[:300]!r}")
    return data


def rss_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1))


class RssWatch:
    def __init__(self, pid):
        self.pid, self.peak, self.running = pid, 0, True
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while self.running:
            self.peak = max(self.peak, rss_kb(self.pid, "VmRSS"))
            time.sleep(0.01)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.running = False
        self.thread.join()


def fresh(path):
    """Before a timed copy or download: its destination file gone, for `cp` as for the client
    (writing over an existing file would time the truncation of the old one too)."""
    if os.path.exists(path):
        os.unlink(path)


class Discard:
    """A sink that drops what it is given: the download without the client's own file write."""

    def write(self, data):
        pass


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far, all its threads, those gone included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(fn):
    """Seconds `fn` takes, started once the disk has written back what earlier steps left dirty
    (`sync`, not timed): otherwise a step pays for the previous one's writeback, and which side of
    a ratio pays depends on the order of the steps."""
    os.sync()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def start_server(data, etag):
    """The release server on its own cluster under `data`, with this ETag algorithm; its service key."""
    env = dict(os.environ, DATA_DIR=data, PORT=str(PORT), DB_PORT=str(DB_PORT), RUST_LOG="warn",
               WEB_DIR="/nonexistent", FILE_SIZE_LIMIT=str(200 * MB), STORAGE_FILE_ETAG_ALGORITHM=etag)
    if CONGESTION:
        env["TCP_CONGESTION"] = CONGESTION
    log = open(os.path.join(data, f"server-{etag}.log"), "w")
    server = subprocess.Popen([SERVER], env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("server exited; see " + log.name)
        m = re.match(r"service_role key: (\S+)", line)
        if m:
            return server, m.group(1)


def stop(server):
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)


# Per ETag algorithm and size: the medians of the user-space client's upload and download and of
# the download whose bytes the client drops, in MB/s.
USER_SPACE = {}
# Server CPU seconds per 100 MB (upload, download) of the main table, by ETag algorithm.
SERVER_CPU = {}


def upload_sendfile(path, key, src):
    """The file sent as the body by the kernel (`sendfile`, as `cp` copies), headers first."""
    conn = Connection("127.0.0.1", PORT, timeout=300)
    conn.putrequest("POST", "/storage/v1" + path)
    for name, value in {**auth(key), "Content-Type": "application/octet-stream",
                        "Content-Length": str(os.path.getsize(src))}.items():
        conn.putheader(name, value)
    conn.endheaders()
    with open(src, "rb") as f:
        conn.sock.sendfile(f)
    res = conn.getresponse()
    data = res.read()
    conn.close()
    if res.status >= 300:
        sys.exit(f"POST {path}: {res.status} {data[:300]!r}")


def download_splice(path, key, out):
    """The body moved from the socket into the file by the kernel (`splice` through a pipe, as `cp`
    copies): whatever http.client already buffered past the headers is written first."""
    import fcntl
    conn = Connection("127.0.0.1", PORT, timeout=300)
    conn.request("GET", "/storage/v1" + path, headers=auth(key))
    res = conn.getresponse()
    if res.status != 200:
        sys.exit(f"GET {path}: {res.status} {res.read()[:300]!r}")
    left = int(res.getheader("Content-Length"))
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, MB)
        with open(out, "wb") as f:
            head = res.fp.read1(left) if left else b""
            f.write(head)
            f.flush()
            left -= len(head)
            conn.sock.settimeout(None)
            while left:
                n = os.splice(conn.sock.fileno(), w, min(left, MB))
                if n == 0:
                    sys.exit(f"GET {path}: the body ended early")
                while n:
                    moved = os.splice(r, f.fileno(), n)
                    n, left = n - moved, left - moved
    finally:
        os.close(r)
        os.close(w)
        conn.close()


def median_rate(size_mb, seconds):
    return size_mb / statistics.median(seconds)


def transfers(server, key, work, etag, rows):
    """1 MB and 100 MB up and down beside cp, each step REPS times (medians); the peak RSS (MB)
    during the 100 MB ones.

    The main columns use a client that, like `cp`, leaves the copying to the kernel (`sendfile` up,
    `splice` down); the same transfers through the client's own 1 MB buffer, and the download with
    the bytes dropped, are kept in USER_SPACE. Each round's objects are deleted after it, as `cp`'s
    destination is before each copy, so every round writes into memory the page cache has used
    before (on this VM a page the guest never touched costs far more than a reused one, and only
    the server's side would otherwise pay for it)."""
    peak_mb = 0.0
    cpu = {"up": 0.0, "down": 0.0}
    for size_mb in (1, 100):
        src = os.path.join(work, f"src-{size_mb}")
        if not os.path.exists(src):
            with open(src, "wb") as f:
                for _ in range(size_mb):
                    f.write(os.urandom(MB))
        copy, back = os.path.join(work, f"copy-{size_mb}"), os.path.join(work, f"back-{size_mb}")
        out = os.path.join(work, f"down-{size_mb}")
        length = {"Content-Type": "application/octet-stream", "Content-Length": str(size_mb * MB)}
        steps = {k: [] for k in ("cp_up", "cp_down", "up", "down", "up_user", "down_user", "dropped")}
        with RssWatch(server.pid) as watch:
            for rep in range(REPS):
                fresh(copy)
                steps["cp_up"].append(timed(lambda: shutil.copyfile(src, copy)))
                fresh(back)
                steps["cp_down"].append(timed(lambda: shutil.copyfile(copy, back)))
                name, user = f"/object/bench/obj-{size_mb}-{rep}", f"/object/bench/user-{size_mb}-{rep}"
                before = cpu_seconds(server.pid)
                steps["up"].append(timed(lambda: upload_sendfile(name, key, src)))
                between = cpu_seconds(server.pid)
                fresh(out)
                steps["down"].append(timed(lambda: download_splice(name, key, out)))
                if size_mb == 100:
                    cpu["up"] += between - before
                    cpu["down"] += cpu_seconds(server.pid) - between
                if os.path.getsize(out) != size_mb * MB or not filecmp.cmp(src, out, shallow=False):
                    sys.exit("the downloaded file differs from the uploaded one")

                def up_user():
                    with open(src, "rb") as f:
                        request("POST", user, key, f, length)
                steps["up_user"].append(timed(up_user))

                def down_user():
                    with open(out, "wb") as f:
                        request("GET", user, key, sink=f)
                fresh(out)
                steps["down_user"].append(timed(down_user))
                if os.path.getsize(out) != size_mb * MB:
                    sys.exit("downloaded size differs")
                steps["dropped"].append(timed(lambda: request("GET", name, key, sink=Discard())))
                for path in (name, user):
                    request("DELETE", path, key)
        if size_mb == 100:
            peak_mb = max(watch.peak, rss_kb(server.pid, "VmHWM")) / 1024
            SERVER_CPU[etag] = (cpu["up"] / REPS, cpu["down"] / REPS)
        rate = {k: median_rate(size_mb, v) for k, v in steps.items()}
        rows.append((f"{size_mb} MB ({etag})", rate["up"], rate["down"], rate["cp_up"], rate["cp_down"]))
        USER_SPACE[f"{size_mb} MB ({etag})"] = (rate["up_user"], rate["down_user"], rate["dropped"])
        with open(src, "rb") as f:  # kept for the resumable and S3 comparisons
            request("POST", f"/object/bench/obj-{size_mb}", key, f, length)
    return peak_mb


def resumable(key, work):
    """The 100 MB file uploaded with TUS in 6 MB chunks (a POST, then one PATCH per chunk): MB/s."""
    import base64
    src = os.path.join(work, "src-100")
    size = os.path.getsize(src)
    chunk = 6 * MB
    meta = ",".join(f"{k} {base64.b64encode(v.encode()).decode()}" for k, v in
                    (("bucketName", "bench"), ("objectName", "resumable-100"), ("contentType", "application/octet-stream")))

    def run():
        conn = Connection("127.0.0.1", PORT, timeout=300, blocksize=MB)
        base = {**auth(key), "Tus-Resumable": "1.0.0"}
        conn.request("POST", "/storage/v1/upload/resumable", headers={**base, "Upload-Length": str(size), "Upload-Metadata": meta})
        res = conn.getresponse()
        res.read()
        if res.status != 201:
            sys.exit(f"TUS create: {res.status}")
        location = "/storage/v1" + res.getheader("Location").split("/storage/v1", 1)[1]
        offset = 0
        with open(src, "rb") as f:
            while offset < size:
                body = f.read(chunk)
                conn.request("PATCH", location, body=body, headers={**base, "Upload-Offset": str(offset),
                             "Content-Type": "application/offset+octet-stream", "Content-Length": str(len(body))})
                res = conn.getresponse()
                res.read()
                if res.status != 204:
                    sys.exit(f"TUS PATCH at {offset}: {res.status}")
                offset = int(res.getheader("Upload-Offset"))
        conn.close()
    return (size / MB) / timed(run)


def png(width, height):
    """A gradient RGB PNG, encoded with zlib."""
    import struct, zlib
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        raw.extend(bytes((x % 256, y % 256, (x + y) % 256)[i] for x in range(width) for i in range(3)))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b""))


def renders(key):
    """Transformations per second of a 2 MP PNG to 400 px WebP: cold, cached, and plain downloads."""
    request("POST", "/object/bench/render/source.png", key, png(1600, 1250), {"Content-Type": "image/png"})
    accept = {"Accept": "image/avif,image/webp,*/*"}
    cold_n, warm_n = 12, 200
    def cold():
        for i in range(cold_n):
            request("GET", f"/render/image/authenticated/bench/render/source.png?width={400 + i}&height=312&resize=cover", key,
                    headers=accept)
    def warm():
        for _ in range(warm_n):
            request("GET", "/render/image/authenticated/bench/render/source.png?width=400&height=312&resize=cover", key,
                    headers=accept)
    def plain():
        for _ in range(warm_n):
            request("GET", "/object/bench/render/source.png", key)
    request("GET", "/render/image/authenticated/bench/render/source.png?width=400&height=312&resize=cover", key, headers=accept)
    return cold_n / timed(cold), warm_n / timed(warm), warm_n / timed(plain)


def s3_download(data, work):
    """GetObject of the 100 MB object through /storage/v1/s3, signed with SigV4: MB/s (median)."""
    import hashlib, hmac
    from datetime import datetime, timezone
    env = dict(os.environ, DATA_DIR=data, DB_PORT=str(DB_PORT), RUST_LOG="warn")
    out = subprocess.run([SERVER, "keys", "s3-new", "--description", "bench"], env=env, capture_output=True, text=True, check=True).stdout
    key_id = re.search(r"S3 access key id: (\S+)", out).group(1)
    secret = re.search(r"S3 secret access key: (\S+)", out).group(1)
    path = "/storage/v1/s3/bench/obj-100"
    now = datetime.now(timezone.utc)
    amz_date, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    empty = hashlib.sha256(b"").hexdigest()
    host = f"127.0.0.1:{PORT}"
    canonical = f"GET\n{path}\n\nhost:{host}\nx-amz-content-sha256:{empty}\nx-amz-date:{amz_date}\n\nhost;x-amz-content-sha256;x-amz-date\n{empty}"
    scope = f"{day}/us-east-1/s3/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    k = f"AWS4{secret}".encode()
    for part in (day, "us-east-1", "s3", "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    headers = {"Host": host, "x-amz-date": amz_date, "x-amz-content-sha256": empty,
               "Authorization": f"AWS4-HMAC-SHA256 Credential={key_id}/{scope}, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={signature}"}
    target = os.path.join(work, "s3-down-100")
    def run():
        conn = Connection("127.0.0.1", PORT, timeout=300)
        conn.request("GET", path, headers=headers)
        res = conn.getresponse()
        if res.status != 200:
            sys.exit(f"S3 GetObject: {res.status} {res.read()[:300]!r}")
        # Into one reused buffer, as the Supabase-protocol download it is compared with.
        buf = bytearray(MB)
        view = memoryview(buf)
        with open(target, "wb") as f:
            while n := res.readinto(buf):
                f.write(view[:n])
        conn.close()
    # One untimed request first (the first S3 request of a server opens connections the others
    # reuse), then the median of REPS, as for the other steps.
    run()
    elapsed = statistics.median(timed(run) for _ in range(REPS))
    if os.path.getsize(target) != 100 * MB:
        sys.exit("S3 download size differs")
    return 100 / elapsed


WRK_SMALL = """
local counter = 0
local threads = {}
function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end
function request()
  counter = counter + 1
  if KIND == "up" then
    return wrk.format("POST", "/storage/v1/object/bench/small/up-" .. id .. "-" .. counter)
  end
  return wrk.format("GET", "/storage/v1/object/bench/small/seed-" .. (counter % 200))
end
"""


def small_ops(key, work, kind):
    """10 KB uploads (each to a new name) or downloads per second, driven by wrk (keep-alive)."""
    script = os.path.join(work, f"small-{kind}.lua")
    headers = {**auth(key), "Content-Type": "application/octet-stream"}
    body = "x" * (10 * 1024)
    with open(script, "w") as f:
        upload = f'wrk.body = "{body}"\n' if kind == "up" else ""
        f.write(f'KIND = "{kind}"\n' + headers_lua(headers) + upload + WRK_SMALL)
    out = subprocess.run(["wrk", "-t2", f"-c{SMALL_CONNS}", f"-d{max(1, round(SMALL_SECONDS))}s", "-s", script,
                          f"http://127.0.0.1:{PORT}"], capture_output=True, text=True)
    if out.returncode != 0 or "Non-2xx" in out.stdout:
        sys.exit(f"10 KB {kind}: wrk failed or the server refused requests:\n{out.stdout}{out.stderr}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out.stdout).group(1))


def md5_alone():
    """MB/s of one core computing the MD5 of 100 MB held in memory (median of REPS)."""
    data = os.urandom(100 * MB)
    times = []
    for _ in range(REPS):
        start = time.perf_counter()
        hashlib.md5(data).digest()
        times.append(time.perf_counter() - start)
    return 100 / statistics.median(times)


def socket_to_file(work):
    """MB/s of the 100 MB file sent by the upload's own client (`sendfile`, same congestion
    control) to a minimal receiver in this process that reads into one 1 MiB buffer and writes
    a new file: the two copies any server's upload costs, with nothing else (median of REPS)."""
    src, dst = os.path.join(work, "src-100"), os.path.join(work, "received")
    size = os.path.getsize(src)
    listener = with_congestion(socket.create_server(("127.0.0.1", 0)))

    def receive():
        buf = memoryview(bytearray(MB))
        for _ in range(REPS):
            conn, _ = listener.accept()
            with conn, open(dst, "wb") as f:
                left = size
                while left:
                    n = conn.recv_into(buf, min(MB, left))
                    if not n:
                        break
                    f.write(buf[:n])
                    left -= n
                conn.sendall(b"k")

    receiver = threading.Thread(target=receive, daemon=True)
    receiver.start()
    times = []
    for _ in range(REPS):
        fresh(dst)

        def send():
            with client_socket(listener.getsockname(), 300) as conn, open(src, "rb") as f:
                conn.sendfile(f)
                conn.recv(1)
        times.append(timed(send))
    receiver.join(timeout=60)
    listener.close()
    return (size / MB) / statistics.median(times)


def main():
    ensure_wrk()
    received = None
    rows = []
    peak_mb = 0.0
    for etag in ("md5", "mtime"):
        data = tempfile.mkdtemp(prefix="bench-storage-", dir=os.environ.get("BENCH_DIR", "/var/tmp"))
        os.chmod(data, 0o755)
        server, key = start_server(data, etag)
        try:
            request("POST", "/bucket", key, json.dumps({"name": "bench"}), {"Content-Type": "application/json"})
            work = os.path.join(data, "work")
            os.mkdir(work)
            peak_mb = max(peak_mb, transfers(server, key, work, etag, rows))
            if etag == "mtime":
                received = socket_to_file(work)
            if etag == "md5":
                # Both through the client's own buffer, as TUS and S3 are sent and read here.
                plain = USER_SPACE["100 MB (md5)"][0]
                rows.append(("resumable 100 MB", resumable(key, work), plain, None, None))
                rows.append(("render 2 MP", *renders(key), None))
                plain_down = USER_SPACE["100 MB (md5)"][1]
                rows.append(("s3 GetObject 100 MB", s3_download(data, work), plain_down, None, None))
                payload = os.urandom(10 * 1024)
                for n in range(200):
                    request("POST", f"/object/bench/small/seed-{n}", key, payload,
                            {"Content-Type": "application/octet-stream"})
                for kind in ("up", "down"):
                    rows.append((f"10 KB {kind} ops/s", small_ops(key, work, kind), None, None, None))
        finally:
            stop(server)
            shutil.rmtree(data, ignore_errors=True)

    print("\n/storage/v1 (release server, file backend) beside a plain file copy on the same disk")
    print("(md5 / mtime: STORAGE_FILE_ETAG_ALGORITHM; 10 KB ops: wrk, keep-alive, "
          f"{SMALL_CONNS} connections, md5)")
    print(f"{'object':<20}{'upload MB/s':>13}{'download MB/s':>15}{'cp write MB/s':>15}{'cp read MB/s':>14}"
          f"{'up/cp':>8}{'down/cp':>9}")
    for name, a, b, c, d in rows:
        if name.startswith("s3"):
            print(f"{name:<20}{a:>13.1f}   (S3 protocol, SigV4; Supabase-protocol download {b:.1f} MB/s, ratio {a / b:.2f})")
        elif name.startswith("render"):
            print(f"{'render 2 MP -> 400 px WebP':<20}  cold {a:.1f}/s ({1000 / a:.0f} ms), cached {b:.0f}/s, "
                  f"plain download of the source {c:.0f}/s (cached / plain {b / c:.2f}); one connection per request")
        elif name.startswith("resumable"):
            print(f"{name:<20}{a:>13.1f}   (TUS, 6 MB chunks, md5; plain upload {b:.1f} MB/s, ratio {a / b:.2f})")
        elif b is None:
            print(f"{name:<20}{a:>13.0f}")
        else:
            print(f"{name:<20}{a:>13.1f}{b:>15.1f}{c:>15.1f}{d:>14.1f}{a / c:>8.2f}{b / d:>9.2f}")
    print(f"(medians of {REPS} rounds; the client leaves the copying to the kernel, as cp does: sendfile up, "
          "splice down)")
    print("The same transfers with the client copying through its own 1 MB buffer, and the download with the "
          "bytes dropped:")
    print(f"{'object':<20}{'upload MB/s':>13}{'download MB/s':>15}{'dropped MB/s':>14}{'up/cp':>8}{'down/cp':>9}"
          f"{'dropped/cp':>12}")
    for name, a, b, c, d in rows:
        if name in USER_SPACE:
            up, down, dropped = USER_SPACE[name]
            print(f"{name:<20}{up:>13.1f}{down:>15.1f}{dropped:>14.1f}{up / c:>8.2f}{down / d:>9.2f}{dropped / d:>12.2f}")
    print(f"server peak RSS during the 100 MB transfers: {peak_mb:.1f} MB")
    for etag, (up, down) in SERVER_CPU.items():
        print(f"server CPU per 100 MB ({etag}), main table's client: upload {up * 1000:.0f} ms, "
              f"download {down * 1000:.0f} ms (user + system, {REPS} rounds averaged)")
    with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
        host = f.read().strip()
    print(f"TCP congestion control of the transfers, both ends: {CONGESTION or host} "
          f"(BENCH_TCP_CONGESTION; this host's default: {host})")
    upload = next(a for name, a, *_ in rows if name == "100 MB (mtime)")
    cp_write = next(c for name, _, _, c, _ in rows if name == "100 MB (mtime)")
    print(f"100 MB sent by the same client to a minimal receiver (recv into 1 MiB, write a new file): "
          f"{received:.1f} MB/s, {received / cp_write:.2f}x cp; 100 MB (mtime) upload / it: {upload / received:.2f}")
    hashed = md5_alone()
    upload = next(a for name, a, *_ in rows if name == "100 MB (md5)")
    print(f"MD5 of 100 MB on its own (one core, OpenSSL as in the server): {hashed:.1f} MB/s; "
          f"100 MB (md5) upload / hash alone: {upload / hashed:.2f}")


if __name__ == "__main__":
    main()
