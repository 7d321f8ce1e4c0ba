#!/usr/bin/env bash
# Kept FastCGI connections against bench/hello.c (a plain FCGX_Accept_r
# loop, which honours FCGI_KEEP_CONN): one nginx (worker_processes 1,
# production FastCGI parameters) with /static, /hello (fastcgi_keep_conn
# off, as in production) and /hello-keep (upstream keepalive K +
# fastcgi_keep_conn on) on the same hello socket. Each path runs once with
# wrk -c C for S seconds, then /hello again: a worker that blocks on an idle
# kept connection leaves new connections waiting in the listen backlog, which
# shows as latency spikes on /hello-keep and as a /hello that stalls.
# Not part of `make bench`; numbers in bench/perf-notes.md.
#
#   bench/keep_conn_hello.sh [K=2] [C=32] [S=3] [WORKERS=2]
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
K=${1:-2} C=${2:-32} S=${3:-3} W=${4:-2}
d="$(mktemp -d /tmp/svc-keep.XXXXXX)"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
hp="" np=""
cleanup() {
  for p in $np $hp; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$d"
}
trap cleanup EXIT
gcc -O2 -o "$d/hello" "$repo/bench/hello.c" -lfcgi
cat >"$d/nginx.conf" <<NG
worker_processes 1; pid $d/nginx.pid; error_log $d/error.log; daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  include $repo/nginx/conf.d/svc-zones-dev.conf;
  upstream h { server unix:$d/hello.sock; }
  upstream hk { server unix:$d/hello.sock; keepalive $K; }
  server {
    listen 127.0.0.1:$port;
    include $repo/nginx/snippets/svc-fastcgi-params.conf;
    location = /static { default_type application/json; return 200 '{"status":"Success"}'; }
    location = /hello { fastcgi_read_timeout 5s; fastcgi_pass h; }
    location = /hello-keep { fastcgi_read_timeout 5s; fastcgi_keep_conn on; fastcgi_pass hk; }
  }
}
NG
"$d/hello" "$d/hello.sock" "$W" >"$d/hello.log" 2>&1 &
hp=$!
nginx -c "$d/nginx.conf" -p "$d" >"$d/nginx.log" 2>&1 &
np=$!
for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/static" >/dev/null 2>&1 && break; sleep 0.1; done
for path in static hello hello-keep hello; do
  printf '%-10s keepalive=%s workers=%s c=%s: ' "$path" "$K" "$W" "$C"
  wrk -t1 -c"$C" -d"${S}s" --timeout 2s --latency "http://127.0.0.1:$port/$path" |
    awk '/Requests\/sec/{r=$2} /^ +50%/{p50=$2} /^ +99%/{p99=$2} /^ +Latency +[0-9]/{mx=$4} /Socket errors/{sub(/^ +/,""); e=", "$0}
         END{printf "%s req/s, p50 %s, p99 %s, max %s%s\n", r, p50, p99, mx, e}'
done
