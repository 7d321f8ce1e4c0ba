# Sourced by bench/keep_conn_hello.sh and bench/hello_static_profile.sh:
# builds bench/hello.c and starts it (WORKERS prefork workers on a unix
# socket) behind one nginx (worker_processes 1, production FastCGI
# parameters) serving /static by itself and /hello from the workers, one
# connection per request. Sets d (a scratch directory), port, hp and np
# (the hello master's and nginx's pids) and stops both on exit.
#
#   hello_nginx_start WORKERS [EXTRA_HTTP_LINES] [EXTRA_SERVER_LINES]
# EXTRA_* may name $d (single-quoted by the caller, expanded here).
hello_nginx_start() {
  local workers=$1 extra_http=${2:-} extra_server=${3:-}
  d="$(mktemp -d /tmp/svc-hello.XXXXXX)"
  chmod 755 "$d" # nginx's workers (not root) reach the socket
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  hp="" np=""
  trap hello_nginx_stop EXIT
  gcc -O2 -o "$d/hello" "$repo/bench/hello.c" -lfcgi
  extra_http=${extra_http//\$d/$d} extra_server=${extra_server//\$d/$d}
  cat >"$d/nginx.conf" <<NG
worker_processes 1; pid $d/nginx.pid; error_log $d/error.log; daemon off;
events { worker_connections 4096; }
http {
  access_log off;
  include $repo/nginx/conf.d/svc-zones-dev.conf;
  upstream h { server unix:$d/hello.sock; }
  $extra_http
  server {
    listen 127.0.0.1:$port;
    include $repo/nginx/snippets/svc-fastcgi-params.conf;
    location = /static { default_type application/json; return 200 '{"status":"Success"}'; }
    location = /hello { fastcgi_read_timeout 5s; fastcgi_pass h; }
    $extra_server
  }
}
NG
  "$d/hello" "$d/hello.sock" "$workers" >"$d/hello.log" 2>&1 &
  hp=$!
  nginx -c "$d/nginx.conf" -p "$d" >"$d/nginx.log" 2>&1 &
  np=$!
  for _ in $(seq 50); do curl -fsS "http://127.0.0.1:$port/hello" >/dev/null 2>&1 && break; sleep 0.1; done
}

hello_nginx_stop() {
  for p in $np $hp; do kill -TERM "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$d"
}
