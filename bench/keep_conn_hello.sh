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
. "$repo/bench/hello_nginx.sh"
hello_nginx_start "$W" "upstream hk { server unix:\$d/hello.sock; keepalive $K; }" \
  'location = /hello-keep { fastcgi_read_timeout 5s; fastcgi_keep_conn on; fastcgi_pass hk; }'
for path in static hello hello-keep hello; do
  printf '%-10s keepalive=%s workers=%s c=%s: ' "$path" "$K" "$W" "$C"
  wrk -t1 -c"$C" -d"${S}s" --timeout 2s --latency "http://127.0.0.1:$port/$path" |
    awk '/Requests\/sec/{r=$2} /^ +50%/{p50=$2} /^ +99%/{p99=$2} /^ +Latency +[0-9]/{mx=$4} /Socket errors/{sub(/^ +/,""); e=", "$0}
         END{printf "%s req/s, p50 %s, p99 %s, max %s%s\n", r, p50, p99, mx, e}'
done
