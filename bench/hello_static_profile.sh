#!/usr/bin/env bash
# Where hello ÷ static goes (issue 42): the same nginx (worker_processes 1,
# production FastCGI parameters) serves /static by itself and /hello from
# bench/hello.c's 2 prefork libfcgi workers over a unix socket, one
# connection per request as `make bench` measures it. For each path: wrk -c C
# for S seconds while /proc counts the user and system CPU of nginx and of
# the hello workers (µs per request), and `perf record -g` samples both; then
# the kernel functions that take the most of each process's samples.
# Not part of `make bench`; the figures are in docs/benchmarks.md.
#
#   bench/hello_static_profile.sh [C=32] [S=5]      (PERF=0: the CPU figures only, without perf's own cost)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
C=${1:-32} S=${2:-5}
. "$repo/bench/hello_nginx.sh"
hello_nginx_start 2
nginx_pids="$( (pgrep -P "$np" || true) | tr "\n" " ")$np"
hello_pids="$(pgrep -P "$hp" | tr '\n' ' ')"
ticks() { # user and system clock ticks of the given pids, summed
  for p in "$@"; do awk '{print $14, $15}' "/proc/$p/stat"; done | awk '{u+=$1; s+=$2} END{print u, s}'
}
hz=$(getconf CLK_TCK)
for path in static hello; do
  wrk -t1 -c"$C" -d1s "http://127.0.0.1:$port/$path" >/dev/null # warm-up
  read -r nu0 ns0 < <(ticks $nginx_pids)
  read -r hu0 hs0 < <(ticks $hello_pids)
  pp=""
  if [ "${PERF:-1}" != 0 ]; then
    perf record -g -q -o "$d/$path.data" -p "$(echo $nginx_pids $hello_pids | tr ' ' ',')" -- sleep "$((S + 1))" \
      >/dev/null 2>&1 &
    pp=$!
  fi
  out=$(wrk -t1 -c"$C" -d"${S}s" --timeout 2s "http://127.0.0.1:$port/$path")
  read -r nu1 ns1 < <(ticks $nginx_pids)
  read -r hu1 hs1 < <(ticks $hello_pids)
  [ -z "$pp" ] || wait "$pp" || true
  n=$(awk '/requests in/{print $1}' <<<"$out")
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  errors=$(awk '/Non-2xx|Socket errors/{sub(/^ +/,""); printf "%s; ", $0}' <<<"$out")
  awk -v p="$path" -v n="$n" -v r="$rps" -v hz="$hz" -v e="${errors:-none}" \
    -v nu=$((nu1 - nu0)) -v ns=$((ns1 - ns0)) -v hu=$((hu1 - hu0)) -v hs=$((hs1 - hs0)) 'BEGIN{
      k = 1e6 / hz / n
      printf "%-7s %9.1f req/s  nginx user %5.1f sys %5.1f µs/req  hello user %5.1f sys %5.1f µs/req  errors: %s\n",
        p, r, nu * k, ns * k, hu * k, hs * k, e }'
  [ -n "$pp" ] || continue
  for comm in nginx hello; do
    echo "  $path, $comm: the kernel functions with the most samples (share of all samples of $path)"
    perf report -i "$d/$path.data" --comm "$comm" --no-children --sort sym -q -g none 2>/dev/null |
      awk '$2 == "[k]" {print "   ", $0}' | head -8 || true
  done
done
