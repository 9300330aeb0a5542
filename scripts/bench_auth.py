#!/usr/bin/env python3
"""make bench-auth: /auth/v1 password sign-ins/s, refresh grants/s and GET /user latency.

Starts the release server on a fresh private cluster (rate limits off, autoconfirm on), creates
a user, then drives each scenario with wrk at a few concurrencies:
  * POST /token?grant_type=password  (one argon2id verification per request);
  * POST /token?grant_type=refresh_token, each request with its own unused refresh token
    (tokens are made beforehand in SQL, one session each), of algorithm 1 (token rows), then of
    algorithm 2 (a counter signed with the session's key, signed here);
  * GET /user with a user access token;
  * anonymous sign-ins (POST /signup with no address), beside the password sign-ins;
  * token verification on /rest/v1 (a one-row read) with a different token on every request, so
    that each one is verified (the verified-claims cache never hits): HS256 tokens signed with the
    JWT secret, ES256 tokens of the generated signing key, RS256 tokens after `server keys new
    --pem` (an `openssl genrsa` key) and `rotate`; the asymmetric ones are minted by refresh grants.
Prints requests/s, p50 and p99, plus the argon2 parameters and the cost of one hash on this
machine (from the `argon2_cost` binary) for comparison. Not a test: numbers vary by machine.
"""
import base64, concurrent.futures, hashlib, hmac, json, os, re, shutil, subprocess, sys, tempfile, time, urllib.request

from benchlib import ensure_wrk, headers_lua, refresh_lua, token_pool_lua, v2_sessions_sql, v2_token

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
SERVER = os.environ.get("BENCH_SERVER", os.path.join(TARGET, "release", "server"))
COST = os.path.join(TARGET, "release", "argon2_cost")
PORT = int(os.environ.get("BENCH_PORT", 54381))
DURATION = int(os.environ.get("BENCH_SECONDS", 8))
CONCURRENCIES = [int(c) for c in os.environ.get("BENCH_CONCURRENCY", "1,8,32").split(",")]
URL = f"http://127.0.0.1:{PORT}"
EMAIL, PASSWORD = "bench@example.test", "bench-password-1"


def request(method, path, body=None, headers=None):
    req = urllib.request.Request(URL + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"content-type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read() or b"null")


def run_wrk(path, conns, lua):
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(lua)
    script.close()
    threads = min(2, conns)
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(conns), "-d", f"{DURATION}s", "--latency",
                          "-s", script.name, URL + path], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def ms(label):
        m = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, ms("50"), ms("99"), int(errors.group(1)) if errors else 0


VERIFY_CONNS = 8
VERIFY_SECONDS = 4
VERIFY_TOKENS = 30000


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(secret, claims):
    head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64(json.dumps(claims).encode())
    sig = hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64(sig)}"


def minted(refresh_tokens, count):
    """Access tokens from `count` refresh grants (signed by the key in use), 8 at a time."""
    def grant(token):
        return request("POST", "/auth/v1/token?grant_type=refresh_token", {"refresh_token": token})["access_token"]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return list(pool.map(grant, refresh_tokens[:count]))


def rest_run(path, anon, tokens_file):
    lua = headers_lua({"apikey": anon}) + token_pool_lua(tokens_file, 2) + f'''function request()
  idx = idx % #tokens + 1
  return wrk.format(nil, nil, {{["apikey"] = "{anon}", ["Authorization"] = "Bearer " .. tokens[idx]}})
end
'''
    script = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
    script.write(lua)
    script.close()
    out = subprocess.run(["wrk", "-t", "2", "-c", str(VERIFY_CONNS), "-d", f"{VERIFY_SECONDS}s", "--latency", "-s", script.name,
                          URL + path], capture_output=True, text=True, check=True).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, p99_ms, requests, int(errors.group(1)) if errors else 0


def verification_rows(env, data_dir, db_url, psql, anon, user_id, refresh_tokens):
    """/rest/v1 reads with a new token on every request, per signing algorithm."""
    subprocess.run([psql, "-q", "-c", "create table public.bench_one (id int primary key); insert into public.bench_one values (1); "
                    "grant select on public.bench_one to authenticated; notify pgrst, 'reload schema';", db_url], check=True)
    time.sleep(1)
    secret = open(os.path.join(data_dir, "secrets", "jwt_secret")).read().strip()
    now = int(time.time())
    hs = [hs256(secret, {"sub": user_id, "role": "authenticated", "aud": "authenticated", "iat": now, "exp": now + 3600,
                         "n": i}) for i in range(VERIFY_TOKENS)]
    half = len(refresh_tokens) // 2
    es = minted(refresh_tokens[:half], VERIFY_TOKENS)
    pem = os.path.join(data_dir, "rsa.pem")
    subprocess.run(["openssl", "genrsa", "-out", pem, "2048"], check=True, capture_output=True)
    for args in (["new", "--pem", pem], ["rotate"]):
        subprocess.run([SERVER, "keys", *args], env=env, check=True, capture_output=True)
    time.sleep(2.5)
    rs = minted(refresh_tokens[half:], VERIFY_TOKENS)
    if not rs or json.loads(base64.urlsafe_b64decode(rs[0].split(".")[0] + "==")).get("alg") != "RS256":
        sys.exit("the rotation to the RS256 key did not take effect")
    print(f"\n/rest/v1 one-row read, a different token on every request ({VERIFY_CONNS} connections, {VERIFY_SECONDS} s):")
    print(f"{'algorithm':<12}{'req/s':>10}{'p99 ms':>10}{'requests':>10}{'tokens':>10}{'errors':>8}")
    for name, tokens in (("HS256", hs), ("ES256", es), ("RS256", rs)):
        path = os.path.join(data_dir, f"bearer-{name}.txt")
        with open(path, "w") as f:
            f.write("\n".join(tokens))
        rps, p99, requests, errors = rest_run("/rest/v1/bench_one?select=id", anon, path)
        note = "" if requests <= len(tokens) else "  (tokens reused: some verifications cached)"
        print(f"{name:<12}{rps:>10.0f}{p99:>10.1f}{requests:>10}{len(tokens):>10}{errors:>8}{note}")


def main():
    ensure_wrk()
    for binary in (SERVER, COST):
        if not os.path.exists(binary):
            sys.exit(f"{binary} is missing: run `cargo build --release -p server` first")
    cost = subprocess.run([COST], capture_output=True, text=True, check=True).stdout.strip()
    data_dir = tempfile.mkdtemp(prefix="bench-auth-")
    os.chmod(data_dir, 0o755)  # as root, PostgreSQL runs as `postgres`, which must enter it
    env = {**os.environ, "DATA_DIR": data_dir, "PORT": str(PORT), "DB_PORT": "0", "WEB_DIR": "/nonexistent",
           "RUST_LOG": "warn", "MAILER_AUTOCONFIRM": "true", "RATE_LIMIT_TOKEN_REFRESH": "0",
           "RATE_LIMIT_OTP": "0", "RATE_LIMIT_VERIFY": "0", "RATE_LIMIT_EMAIL_SENT": "0",
           "EXTERNAL_ANONYMOUS_USERS_ENABLED": "true", "RATE_LIMIT_ANONYMOUS_USERS": "0",
           "SIGNING_KEYS_RELOAD_SECONDS": "1"}
    log = open(os.path.join(data_dir, "server.log"), "w")
    server = subprocess.Popen([SERVER], env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        anon = None
        for line in server.stdout:
            if line.startswith("anon key: "):
                anon = line.split(": ", 1)[1].strip()
            if line.startswith("service_role key: "):
                break
        if anon is None:
            sys.exit("the server did not start:\n" + open(os.path.join(data_dir, "server.log")).read())
        for _ in range(100):
            try:
                request("GET", "/auth/v1/health")
                break
            except Exception:
                time.sleep(0.1)
        session = request("POST", "/auth/v1/signup", {"email": EMAIL, "password": PASSWORD}, {"apikey": anon})
        user_id, access = session["user"]["id"], session["access_token"]
        db_url = subprocess.run([SERVER, "db", "url"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        psql = next((p for p in (f"/usr/lib/postgresql/{v}/bin/psql" for v in sorted(os.listdir("/usr/lib/postgresql"), reverse=True)) if os.path.exists(p)), "psql")
        needed = 60000 * max(1, DURATION // 8) * len(CONCURRENCIES) + 2 * VERIFY_TOKENS
        tokens_sql = (
            "with s as (insert into auth.sessions (id, user_id, created_at, updated_at, aal) "
            f"select gen_random_uuid(), '{user_id}', now(), now(), 'aal1' from generate_series(1, {needed}) returning id) "
            "insert into auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, session_id) "
            f"select md5(random()::text || id::text), '{user_id}', false, now(), now(), id from s returning token"
        )
        tokens = subprocess.run([psql, "-At", "-c", tokens_sql, db_url], capture_output=True, text=True, check=True).stdout.split()
        tokens = [t for t in tokens if len(t) == 32]
        reserved, tokens = tokens[-2 * VERIFY_TOKENS:], tokens[:-2 * VERIFY_TOKENS]
        chunk = len(tokens) // len(CONCURRENCIES)

        print(f"\n{cost}\n")
        print(f"{'scenario':<34}{'conns':>6}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'errors':>8}")
        common = {"apikey": anon, "Content-Type": "application/json"}
        body = json.dumps({"email": EMAIL, "password": PASSWORD})
        for c in CONCURRENCIES:
            lua = headers_lua(common) + f'wrk.method = "POST"\nwrk.body = {json.dumps(body)}\n'
            print(f"{'password sign-in (POST /token)':<34}{c:>6}" + "{:>10.0f}{:>10.1f}{:>10.1f}{:>8}".format(*run_wrk("/auth/v1/token?grant_type=password", c, lua)))
        v2_lines = subprocess.run([psql, "-At", "-c", v2_sessions_sql(user_id, chunk * len(CONCURRENCIES)), db_url],
                                  capture_output=True, text=True, check=True).stdout.split("\n")
        v2_tokens = [v2_token(*line.split()) for line in v2_lines if line.count(" ") == 1]
        for label, pool in (("refresh grant (POST /token)", tokens), ("refresh grant, algorithm 2", v2_tokens)):
            for i, c in enumerate(CONCURRENCIES):
                path = os.path.join(data_dir, f"tokens-{label[-1]}-{c}.txt")
                with open(path, "w") as f:
                    f.write("\n".join(pool[i * chunk:(i + 1) * chunk]))
                lua = headers_lua(common) + refresh_lua(path, min(2, c))
                print(f"{label:<34}{c:>6}" + "{:>10.0f}{:>10.1f}{:>10.1f}{:>8}".format(*run_wrk("/auth/v1/token?grant_type=refresh_token", c, lua)))
        for c in CONCURRENCIES:
            lua = headers_lua({"apikey": anon, "Authorization": f"Bearer {access}"})
            print(f"{'GET /user':<34}{c:>6}" + "{:>10.0f}{:>10.1f}{:>10.1f}{:>8}".format(*run_wrk("/auth/v1/user", c, lua)))
        for c in CONCURRENCIES:
            lua = headers_lua(common) + 'wrk.method = "POST"\nwrk.body = "{}"\n'
            print(f"{'anonymous sign-in (POST /signup)':<34}{c:>6}" + "{:>10.0f}{:>10.1f}{:>10.1f}{:>8}".format(*run_wrk("/auth/v1/signup", c, lua)))
        verification_rows(env, data_dir, db_url, psql, anon, user_id, reserved)
        print("\nSign-in throughput is bounded by argon2 (one verification per request, on the blocking pool);")
        print("compare it with the 'at most N verifications/s' above. Errors count non-2xx answers.")
    finally:
        server.terminate()
        server.wait(timeout=60)
        subprocess.run([SERVER, "db", "stop"], env=env, capture_output=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
