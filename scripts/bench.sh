#!/usr/bin/env bash
# `make bench`: builds a Release svc and the bench helpers, starts its own
# stack in a temporary directory (access log off, sender loop off, the floor
# programs bench/hello.c and bench/hello_db.c and bench-only server blocks
# inside the same nginx, the PHP-FPM peer), runs bench/bench.py, and always
# stops everything it started (trap), also on error or Ctrl-C. Writes docs/benchmarks.md and
# bench/results.json; raw files and logs of the last run go to bench/out/
# (not in git).
#
# Environment (defaults in brackets):
#   BENCH_SECONDS [5]      seconds per arm per round
#   BENCH_ROUNDS [3]       rounds; arms are interleaved, medians reported
#   BENCH_CONNECTIONS [32] wrk connections for the cheap arms
#   BENCH_HASH_CONNECTIONS [8]  wrk connections for login / sign-up
#   BENCH_MAILS [1000]     e-mails per sender run
#   BENCH_WARMUP [1]       seconds per arm of warm-up
#   BENCH_BUILD_DIR [build-release]
#   BENCH_KEEP_STACK=1     keep the stack's temporary directory (logs) after the run
#   SVC_WORKERS [nproc]    svc-fcgi workers, and hello's; SVC_HASHING_WORKERS [same]
#   SVC_MAX_REQUESTS [10000, the production default]
#   SVC_OUTBOUND_WORKERS [16]  workers of the outbound pool (push, notification, SMS code)
#   SVC_OUTBOUND_PER_SITE [0]  [outbound] per_site: off, because the notification arm
#                          loads a few sites from 32 connections;
#                          tests/integration/test_outbound_isolation.py covers the cap
#   BENCH_FLOOR_DELETE_ROWS [1000000]  rows of the hello-delete-rs256 floor's table
#                          (bench/floors.sql; each request deletes one)
#   BENCH_MFA_USERS [1500] users with a TOTP factor the "login-mfa-verify" arm
#                          enrols first (bench/mfa_arm.py; a time step serves a user once)
#   BENCH_MIX_SECONDS [60] seconds per offered rate of the mixed-traffic open-loop arm (bench/mix.py); 0 skips it
#   BENCH_MIX_RATES [250,500,750,1000,1250,1500,1750,2000]  offered rates (req/s), tried in order until one fails
#   BENCH_MIX_PHP_RATES [100,250,350,500,750,1000]  the same search against the PHP-FPM
#                          peer (bench/php-peer/, bench/php_peer.py), after svc's; empty skips it
#   BENCH_MIX_RUNS [3]     consecutive runs of the mix comparison (svc's search, then the peer's), all reported
#   BENCH_PHP_WORKERS [8]  the peer's PHP-FPM pool (pm = static): four children per core
#   BENCH_ONLY             comma-separated arm names (e.g. refresh-token,user-email): only those
#                          and their floors (refresh-token: and the PHP-FPM peer's php-refresh-token),
#                          medians and ratios printed and in bench/out/only.json;
#                          no sender runs; nothing committed is rewritten.
#                          BENCH_ONLY=mix: the mixed-traffic arm alone, to bench/out/mix.json;
#                          BENCH_ONLY=breached: the breached-list rows alone, to bench/out/breached.json
#   BENCH_BREACHED_ENTRIES [100000000]  entries of the breached list the lookup rows search
#   BENCH_BREACHED_LINES [10000000]     lines of the SHA1:COUNT text the import row reads
#                          (both generated once into bench/out/breached/ and reused; ENTRIES=0 skips these rows)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
py=/usr/bin/python3
jobs=$(nproc)
build="${BENCH_BUILD_DIR:-$repo/build-release}"
out="$repo/bench/out"
helpers="$out/bin"
workers=${SVC_WORKERS:-$jobs}

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

for tool in wrk cmake nginx mariadbd gcc g++; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh)"
done
# The mix arm's PHP-FPM peer runs only with the mix: in a full run, or with
# BENCH_ONLY=mix (the mix alone, both sides; BENCH_MIX_PHP_RATES= for svc only).
php_rates=""
if [ "${BENCH_MIX_SECONDS:-60}" != "0" ] && { [ -z "${BENCH_ONLY:-}" ] || [ "${BENCH_ONLY}" = "mix" ]; }; then
  php_rates=${BENCH_MIX_PHP_RATES-100,250,350,500,750,1000}
fi
# ... and for its php-refresh-token arm beside svc's rotating refresh-token
# (issue 37): in a full run, or when BENCH_ONLY names either.
want_peer=0
[ -n "$php_rates" ] && want_peer=1
case ",${BENCH_ONLY:-all}," in *,all,* | *,refresh-token,* | *,php-refresh-token,*) want_peer=1 ;; esac
php_fpm=""
if [ "$want_peer" = 1 ]; then
  php_fpm=$(command -v php-fpm8.2 || command -v php-fpm || true)
  [ -n "$php_fpm" ] || [ -z "$php_rates" ] || die "php-fpm is missing (scripts/install-deps.sh: php-fpm, php-mysql)"
  [ -n "$php_fpm" ] || { say "php-fpm is missing: no php-refresh-token arm"; want_peer=0; }
fi

# --- build -----------------------------------------------------------------
mkdir -p "$helpers"
say "building Release svc in $build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSVC_TESTS=OFF >"$out/build.log" 2>&1 \
  && cmake --build "$build" -j "$jobs" >>"$out/build.log" 2>&1 \
  || { tail -n 40 "$out/build.log" >&2; die "build failed (bench/out/build.log)"; }

say "building bench helpers in $helpers"
gcc -O2 -Wall -Wextra -o "$helpers/hello" bench/hello.c -lfcgi
gcc -O2 -Wall -Wextra $(mariadb_config --cflags) -o "$helpers/hello_db" bench/hello_db.c -lfcgi -lmariadb -lcrypto
# libsodium's Argon2id verify as is and with a kept arena: the login floor is the fastest of them.
g++ -std=c++20 -O2 -Wall -Wextra -o "$helpers/argon2_impls" bench/argon2_impls.cpp -lsodium
core_libs=("$build/libsvc_core.a" -lsodium -lcurl -lssl -lcrypto -lPocoNetSSL -lPocoNet -lPocoUtil
  -lPocoFoundation -lmysqlcppconn -lfcgi -lcrypt -lopendkim -lcbor -lqrencode -lzxcvbn)
g++ -std=c++20 -O2 -Wall -Wextra -o "$helpers/mix_load" bench/mix_load.cpp
g++ -std=c++20 -O2 -Wall -Wextra -I"$repo/src" -o "$helpers/breached_bench" bench/breached_bench.cpp "${core_libs[@]}"
# Session reuse on/off needs SmtpMailer's reuse_session: measured only if this builds.
rm -f "$helpers/sender_pass"
g++ -std=c++20 -O2 -Wall -Wextra -I"$repo/src" -o "$helpers/sender_pass" bench/sender_pass.cpp "${core_libs[@]}" \
  2>"$out/sender_pass-build.log" || say "bench/sender_pass.cpp did not build: session reuse not measured"

# --- stack -----------------------------------------------------------------
stack="$(mktemp -d /tmp/svc-bench.XXXXXX)"
floor_pids=()
tls_sink_pid=""
php_fpm_pid=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  say "stopping the bench stack"
  SVC_STACK_DIR="$stack" "$repo/scripts/stack.sh" down >/dev/null 2>&1 || true
  local pid
  for pid in "${floor_pids[@]}" "$tls_sink_pid" "$php_fpm_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  mkdir -p "$out/last-run"
  cp "$stack"/*.log "$stack/nginx.conf" "$stack/bench-nginx.conf" "$stack/php-fpm.conf" "$out/last-run/" 2>/dev/null || true
  if [ "${BENCH_KEEP_STACK:-0}" = "1" ]; then say "stack directory kept: $stack"; else rm -rf "$stack"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
bench_port=$(free_port)
php_port=$(free_port)
sed -e "s|@SOURCE_DIR@|$repo|g" -e "s|@BENCH_PORT@|$bench_port|g" -e "s|@STACK_DIR@|$stack|g" \
  -e "s|@HELLO_SOCKET@|$stack/hello.sock|g" \
  -e "s|@PHP_PORT@|$php_port|g" -e "s|@PHP_SOCKET@|$stack/php-fpm.sock|g" \
  -e "s|@PHP_PEER_DIR@|$repo/bench/php-peer|g" "$repo/bench/nginx-bench.conf.in" >"$stack/bench-nginx.conf"

"$helpers/hello" "$stack/hello.sock" "$workers" >"$stack/hello.log" 2>&1 &
floor_pids+=($!)

say "starting the stack in $stack"
SVC_STACK_DIR="$stack" SVC_HTTP_PORT=0 SVC_BIN_DIR="$build" SVC_WORKERS="$workers" \
  SVC_HASHING_WORKERS="${SVC_HASHING_WORKERS:-$workers}" SVC_MAX_REQUESTS="${SVC_MAX_REQUESTS:-10000}" \
  SVC_OUTBOUND_WORKERS="${SVC_OUTBOUND_WORKERS:-16}" SVC_OUTBOUND_PER_SITE="${SVC_OUTBOUND_PER_SITE:-0}" \
  SVC_ACCESS_LOG=off SVC_SENDER_LOOP=0 SVC_NGINX_INCLUDE="$stack/bench-nginx.conf" \
  "$repo/scripts/stack.sh" up >"$stack/stack-up.log" 2>&1 \
  || { cat "$stack/stack-up.log" >&2; die "the stack did not start"; }
# The write floors (bench/hello_db.c): their tables first (bench/floors.sql),
# then one program each, as svc's own database account.
sed -e "s|@DELETE_ROWS@|${BENCH_FLOOR_DELETE_ROWS:-1000000}|g" "$repo/bench/floors.sql" \
  | mariadb --no-defaults --socket="$stack/mysql.sock" -uroot svc || die "bench/floors.sql failed"
db_setting() { awk -F' = ' -v k="$1" '/^\[database\]/ { s = 1; next } /^\[/ { s = 0 } s && $1 == k { print $2 }' "$stack/svc.conf"; }
for mode in update insert delete-rs256; do
  BENCH_DB_SOCKET=$(db_setting socket) BENCH_DB_USER=$(db_setting user) BENCH_DB_PASSWORD=$(db_setting password) \
    BENCH_DB_NAME=$(db_setting name) "$helpers/hello_db" "$mode" "$stack/hello-$mode.sock" "$workers" \
    >"$stack/hello-$mode.log" 2>&1 &
  floor_pids+=($!)
done
printf '%s\n' "${floor_pids[@]}" >"$stack/floors.pid"
for sock in hello hello-update hello-insert hello-delete-rs256; do
  for _ in $(seq 50); do [ -S "$stack/$sock.sock" ] && break; sleep 0.1; done
  [ -S "$stack/$sock.sock" ] || die "the $sock floor did not start ($(tail -n 3 "$stack/$sock.log"))"
done

# The mix arm's PHP-FPM peer (bench/php-peer/): its own pool in the stack
# directory, in the foreground under this script (not systemd's php-fpm
# service), reading the stack's database; stopped by cleanup.
php_workers=${BENCH_PHP_WORKERS:-8}
if [ "$want_peer" = 1 ]; then
  peer_conf=$("$py" "$repo/bench/php_peer.py" config "$stack")
  fpm_user_lines="" fpm_root=()
  if [ "$(id -u)" -eq 0 ]; then fpm_user_lines="user = root"; fpm_root=(-R); fi  # as nginx's "user root;"
  sed -e "s|@PREFIX@|$stack|g" -e "s|@PEER_DIR@|$repo/bench/php-peer|g" -e "s|@PEER_CONFIG@|$peer_conf|g" \
    -e "s|@CHILDREN@|$php_workers|g" -e "s|@USER_LINES@|$fpm_user_lines|g" \
    "$repo/bench/php-peer/php-fpm.conf.in" >"$stack/php-fpm.conf"
  "$php_fpm" -F -y "$stack/php-fpm.conf" "${fpm_root[@]}" >"$stack/php-fpm-stderr.log" 2>&1 &
  php_fpm_pid=$!
  for _ in $(seq 50); do [ -S "$stack/php-fpm.sock" ] && break; sleep 0.1; done
  [ -S "$stack/php-fpm.sock" ] || die "php-fpm did not start ($(tail -n 5 "$stack/php-fpm-stderr.log" "$stack/php-fpm.log" 2>/dev/null))"
fi

# A second SMTP sink that requires STARTTLS: session reuse measured where a
# new session also costs a TLS handshake, as with a real relay.
tls_port=0
if command -v openssl >/dev/null && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -days 1 -subj /CN=127.0.0.1 -keyout "$stack/smtp-tls-key.pem" -out "$stack/smtp-tls-cert.pem" >/dev/null 2>&1; then
  tls_port=$(free_port)
  "$py" "$repo/scripts/sinks/smtp_sink.py" --host 127.0.0.1 --port "$tls_port" --dir "$stack/mail-tls" \
    --tls-cert "$stack/smtp-tls-cert.pem" --tls-key "$stack/smtp-tls-key.pem" --tls-mode starttls \
    >"$stack/smtp-tls-sink.log" 2>&1 &
  tls_sink_pid=$!
fi

"$py" "$repo/bench/bench.py" --stack "$stack" --bin "$build" --helpers "$helpers" --floor-pids "$stack/floors.pid" \
  --bench-port "$bench_port" --mix-runs "${BENCH_MIX_RUNS:-3}" \
  --seconds "${BENCH_SECONDS:-5}" --rounds "${BENCH_ROUNDS:-3}" --conns "${BENCH_CONNECTIONS:-32}" \
  --hash-conns "${BENCH_HASH_CONNECTIONS:-8}" --mails "${BENCH_MAILS:-1000}" --warmup "${BENCH_WARMUP:-1}" \
  --tls-smtp-port "$tls_port" --out "$out" ${BENCH_ONLY:+--only "$BENCH_ONLY"} \
  --mix-seconds "${BENCH_MIX_SECONDS:-60}" --mix-rates "${BENCH_MIX_RATES:-250,500,750,1000,1250,1500,1750,2000}" \
  --php-port "$( [ "$want_peer" = 1 ] && echo "$php_port" || echo 0)" --php-rates "$php_rates" \
  --php-children "$php_workers" --php-pid "${php_fpm_pid:-0}"
