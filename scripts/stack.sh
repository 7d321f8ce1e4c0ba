#!/usr/bin/env bash
# The local stack: MariaDB, svc-fcgi workers, nginx, an SMTP sink, HTTP sinks
# for SMS and push, and the sender on a short loop, all inside one state
# directory. Used by `make run` and by the integration tests.
#
#   scripts/stack.sh up [--foreground]   start (idempotent) and print what to try
#   scripts/stack.sh down                stop everything started by `up`
#   scripts/stack.sh status              show what runs
#   scripts/stack.sh db-stop|db-start    stop/start only MariaDB (tests of /health)
#
# Environment:
#   SVC_STACK_DIR   state directory (default: <repo>/.run)
#   SVC_HTTP_PORT   nginx port on 127.0.0.1 (default 8080; 0 = any free port)
#   SVC_BIN_DIR     where svc-fcgi, svc-admin, svc-sender are (default: <repo>/build)
#   SVC_WORKERS     svc-fcgi workers (default 2); SVC_HASHING_WORKERS: workers of the
#                   second pool that serves the Argon2id routes (default: SVC_WORKERS)
#   SVC_OUTBOUND_WORKERS  workers of the third pool, which serves the routes that wait
#                   on outside parties: sendPush, notification, user-sms-code (default 16)
#   SVC_OUTBOUND_PER_SITE  [outbound] per_site: concurrent pushes/merge queries of one
#                   site (default 4)
#   SVC_MAX_REQUESTS  requests a worker serves before it is recycled (default 10000)
#   SVC_ACCESS_LOG  "off": no nginx access log (benchmarks); default: $SVC_STACK_DIR/nginx-access.log
#   SVC_SENDER_LOOP seconds between the sender's passes (default 1); 0 = do not start it
#   SVC_NGINX_INCLUDE  a file included at nginx's http{} level (extra server blocks
#                   for scripts/bench.sh); only read when nginx is (re)started
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${SVC_STACK_DIR:-$repo/.run}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
bin="${SVC_BIN_DIR:-$repo/build}"
py=/usr/bin/python3
# The demo site owner's TOTP secret (base32; README, docs/api.md): a demo value, never a real one.
demo_owner_totp=DEMOSVCOWNERTOTP
run="$dir/pids"

lib_name=stack
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"

mysql_root() { mariadb --no-defaults --socket="$dir/mysql.sock" -uroot "$@"; }

start_mariadb() {
  if alive mariadb; then return; fi
  local as_user=()
  [ "$(id -u)" -eq 0 ] && as_user=(--user=root)
  if [ ! -d "$dir/mysql/mysql" ]; then
    say "initialising MariaDB in $dir/mysql"
    mariadb-install-db --no-defaults --datadir="$dir/mysql" "${as_user[@]}" \
      --auth-root-authentication-method=normal --skip-test-db >"$dir/mariadb-install.log" 2>&1 \
      || die "mariadb-install-db failed (see $dir/mariadb-install.log)"
  fi
  mariadbd --no-defaults --datadir="$dir/mysql" --socket="$dir/mysql.sock" --skip-networking \
    --pid-file="$dir/mysql.pid" --log-error="$dir/mariadb.log" "${as_user[@]}" \
    --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=2 --skip-log-bin \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --max-connections=500 >/dev/null 2>&1 &
  echo $! >"$run/mariadb.pid"
  wait_for 60 MariaDB mysql_root -e 'SELECT 1'
}

write_config() {
  if [ -f "$dir/svc.conf" ]; then
    # A state directory from before signed access tokens: give it the key
    # that seals the signing keys.
    grep -q '^signing_kek' "$dir/svc.conf" ||
      sed -i "/^reset_key = /a $("$bin/svc-admin" keygen | grep '^signing_kek = ')" "$dir/svc.conf"
    # ... and, from before the second factor, the key that seals TOTP secrets.
    grep -q '^mfa_key' "$dir/svc.conf" ||
      sed -i "/^reset_key = /a $("$bin/svc-admin" keygen | grep '^mfa_key = ')" "$dir/svc.conf"
    # ... and, from before bounce handling, the key of bounce tags and
    # unsubscribe links.
    grep -q '^mail_key' "$dir/svc.conf" ||
      sed -i "/^reset_key = /a $("$bin/svc-admin" keygen | grep '^mail_key = ')" "$dir/svc.conf"
    # ... and, from before webhooks, the key that seals their secrets.
    grep -q '^webhook_key' "$dir/svc.conf" ||
      sed -i "/^reset_key = /a $("$bin/svc-admin" keygen | grep '^webhook_key = ')" "$dir/svc.conf"
    grep -q '^\[webhooks\]' "$dir/svc.conf" || webhooks_section >>"$dir/svc.conf"
    # ... and the bounce address and unsubscribe link of [smtp].
    grep -q '^bounce_address' "$dir/svc.conf" ||
      sed -i "/^backoff_seconds = /a bounce_address = bounce@bounces.localhost\\
unsubscribe_url = http://127.0.0.1:$http_port/mail/unsubscribe" "$dir/svc.conf"
    # ... and the service's own sender of [smtp] (issue 36).
    grep -q '^from = ' "$dir/svc.conf" ||
      sed -i "/^backoff_seconds = /a from = svc <accounts@svc.localhost>" "$dir/svc.conf"
    # ... and the OpenID Connect issuer of [tokens] (issue 39).
    grep -q "^oidc_issuer = http://localhost:$http_port\$" "$dir/svc.conf" ||
      sed -i -e '/^oidc_issuer = /d' -e "/^key_cache_seconds = /a oidc_issuer = http://localhost:$http_port" "$dir/svc.conf"
    return
  fi
  local db_password merge_password
  db_password="$(secret)"
  merge_password="$(secret)"
  mysql_root <<SQL
CREATE DATABASE IF NOT EXISTS svc CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'svc'@'localhost' IDENTIFIED BY '$db_password';
GRANT ALL PRIVILEGES ON svc.* TO 'svc'@'localhost';
CREATE USER IF NOT EXISTS 'svc_merge'@'localhost' IDENTIFIED BY '$merge_password';
SQL
  render_config "$dir/svc.conf" "TITLE=Local stack configuration, by scripts/stack.sh" \
    "SERVER=socket = $dir/svc-fcgi.sock
# A test configuration (unix sockets only): allows [push] allow_insecure_endpoints.
test_mode = true
# nginx sends this secret with every request (svc-front-secret.conf); a
# process that opens the socket directly is refused.
front_secret_file = $dir/front-secret
workers = ${SVC_WORKERS:-2}
# The Argon2id routes (login, sign-up, reset-pass) have their own pool; nginx
# sends them to this socket (nginx/snippets/svc-locations.conf).
hashing_socket = $dir/svc-fcgi-hashing.sock
hashing_workers = ${SVC_HASHING_WORKERS:-${SVC_WORKERS:-2}}
# sendPush, notification and user-sms-code wait on outside parties: a third
# pool, sized for waiting, so a black-holed push endpoint never holds the
# workers of the other routes.
outbound_socket = $dir/svc-fcgi-outbound.sock
outbound_workers = ${SVC_OUTBOUND_WORKERS:-16}" \
    "MAX_REQUESTS=${SVC_MAX_REQUESTS:-10000}" \
    "DATABASE=socket = $dir/mysql.sock" "DB_PASSWORD=$db_password" \
    "MERGE_DATABASE=socket = $dir/mysql.sock" "MERGE_PASSWORD=$merge_password" \
    "RESET_PAGE=http://127.0.0.1:$http_port/account/reset" \
    "KEYS=$("$bin/svc-admin" keygen | grep -v '^#')" \
    "SMTP_HOST=127.0.0.1" "SMTP_PORT=$smtp_port" "SMS_HOST=127.0.0.1" "SMS_PORT=$sms_port" \
    "SMTP_MORE=# Bounces come back to bounce+<tag>@bounces.localhost (svc-admin mail
# ingest); bulk mail links to the one-click unsubscribe on this stack.
bounce_address = bounce@bounces.localhost
unsubscribe_url = http://127.0.0.1:$http_port/mail/unsubscribe
# Account mail with no site to send from (a factor changed with a token
# issued without an appID) goes out from svc itself.
from = svc <accounts@svc.localhost>" \
    "PUSH=allow_insecure_endpoints = true
connect_timeout_ms = 1000" \
    "MORE=[tokens]
# Access tokens (docs/configuration.md): the stack's issuer is the default;
# workers re-read the signing keys every second, so a rotation shows at once.
issuer = https://svc.localhost
key_cache_seconds = 1
# OpenID Connect (issue 39): browsers and relying parties must reach the
# issuer, so it is this stack's own loopback URL (site N: .../oidc/N).
oidc_issuer = http://localhost:$http_port

[outbound]
per_site = ${SVC_OUTBOUND_PER_SITE:-4}
$(webhooks_section)
$(doctor_section)"
}

# Webhooks on this stack: short timeouts and leases, so tests of a silent
# receiver and of a killed sender run in seconds ([push] admits loopback).
webhooks_section() {
  cat <<CONF

[webhooks]
timeout_ms = 2000
connect_timeout_ms = 1000
lease_seconds = 8
CONF
}

# Where `svc-admin doctor` finds this stack's nginx files, so a plain
# `svc-admin --config $dir/svc.conf doctor` checks them (issue 30).
doctor_section() {
  cat <<CONF

[doctor]
nginx_snippet = $repo/nginx/snippets/svc-locations.conf
nginx_front_secret = $dir/svc-front-secret.conf
CONF
}

# The front secret (docs/deploy.md): one random value, in the file svc-fcgi
# reads and in the include nginx.conf picks up (stack.conf.in), both 0600.
# A state directory from before it gets it and the two [server] keys now.
write_front_secret() {
  if [ ! -s "$dir/front-secret" ]; then
    (umask 077 && "$py" -c 'import secrets; print(secrets.token_urlsafe(32))' >"$dir/front-secret")
  fi
  (umask 077 && printf 'fastcgi_param  SVC_FRONT_SECRET  "%s";\n' "$(cat "$dir/front-secret")" \
    >"$dir/svc-front-secret.conf")
  grep -q '^front_secret_file' "$dir/svc.conf" \
    || sed -i -e "/^\[server\]/a front_secret_file = $dir/front-secret" "$dir/svc.conf"
  grep -q '^test_mode' "$dir/svc.conf" || sed -i -e "/^\[server\]/a test_mode = true" "$dir/svc.conf"
  # A state directory from before the [doctor] section gets it.
  grep -q '^\[doctor\]' "$dir/svc.conf" || doctor_section >>"$dir/svc.conf"
}

migrate_and_seed() {
  "$bin/svc-admin" --config "$dir/svc.conf" migrate --sql-dir "$repo/sql" >"$dir/migrate.log" 2>&1 \
    || { cat "$dir/migrate.log" >&2; die "svc-admin migrate failed"; }
  # The read-only merge account may read the demo order table and folders only.
  mysql_root svc <"$repo/sql/seed/demo_tables.sql"
  mysql_root <<SQL
GRANT SELECT ON svc.demo_orders TO 'svc_merge'@'localhost';
GRANT SELECT ON svc.svc_folders TO 'svc_merge'@'localhost';
SQL
  if [ "$(mysql_root -N svc -e 'SELECT COUNT(*) FROM svc_sites WHERE id = 1')" = "0" ]; then
    say "seeding demo site 1, demo user and templates"
    "$bin/svc-admin" --config "$dir/svc.conf" site create --id 1 --name Demo --domain localhost --user-pool default \
      --reset-url "http://127.0.0.1:$http_port/account/reset" \
      --email-from "Demo <no-reply@demo.example>" --vapid-subject "mailto:admin@demo.example" >"$dir/site-create.out"
    save_site_key "$dir/site-create.out"
    printf '%s\n' 'Demo@2026!' | "$bin/svc-admin" --config "$dir/svc.conf" user create \
      --email demo@example.com --first Demo --last User --role admin --mobile +15550100 --verified >/dev/null
    mysql_root svc <"$repo/sql/seed/demo.sql"
  fi
  # The demo site's owner (issue 49): a second demo account, with a TOTP
  # factor of a known secret, so the management API and the console can be
  # tried at once (the demo user keeps signing in with a password only, as
  # the spec's examples do).
  if [ "$(mysql_root -N svc -e "SELECT COUNT(*) FROM svc_users WHERE user_email = 'owner@example.com'")" = "0" ]; then
    say "seeding the demo site's owner"
    printf '%s\n' 'Demo@2026!' | "$bin/svc-admin" --config "$dir/svc.conf" user create --site 1 \
      --email owner@example.com --first Site --last Owner --verified >/dev/null
    printf '%s\n' "$demo_owner_totp" >"$dir/owner-totp.txt"
    "$bin/svc-admin" --config "$dir/svc.conf" users mfa-import --site 1 --email owner@example.com \
      --secret-file "$dir/owner-totp.txt" >/dev/null
    "$bin/svc-admin" --config "$dir/svc.conf" site admin add --site 1 --email owner@example.com --role owner >/dev/null
  fi
  # A state directory from before issue 36 sends the demo's reset links to
  # /reset, which this stack does not serve: point them at the ready page.
  mysql_root svc -e "UPDATE svc_sites SET reset_url = 'http://127.0.0.1:$http_port/account/reset'
    WHERE id = 1 AND reset_url LIKE 'http://127.0.0.1:%/reset'"
  # A state directory from before site keys: give the demo site one now.
  if ! grep -q '^SITE_KEY=' "$dir/env"; then
    "$bin/svc-admin" --config "$dir/svc.conf" site set --site 1 --api-key generate >"$dir/site-create.out"
    save_site_key "$dir/site-create.out"
  fi
}

# The demo site's key ("site_key: KEY", printed once by svc-admin) goes into
# the env file as SITE_KEY, where the tests and the banner read it.
save_site_key() {
  local key
  key=$(sed -n 's/^site_key: //p' "$1")
  rm -f "$1"
  [ -n "$key" ] || die "svc-admin printed no site key for the demo site"
  printf 'SITE_KEY=%s\n' "$key" >>"$dir/env"
  SITE_KEY=$key
}

# A key's value in the stack's svc.conf ("-" when absent).
conf_value() {
  local v
  v=$(sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$dir/svc.conf" 2>/dev/null | tail -n 1)
  printf '%s\n' "${v:--}"
}

site_key() { sed -n 's/^SITE_KEY=//p' "$dir/env" | tail -n 1; }


# The hashing pool's socket as svc.conf names it; a state directory whose
# svc.conf predates the pool has none, and then the Argon2id routes go to the
# one pool like everything else.
hashing_socket() {
  local path
  path=$(sed -n 's/^[[:space:]]*hashing_socket[[:space:]]*=[[:space:]]*//p' "$dir/svc.conf" 2>/dev/null | tail -n 1)
  printf '%s\n' "${path:-$dir/svc-fcgi.sock}"
}

# The outbound pool's socket, likewise (the main socket when svc.conf names none).
outbound_socket() {
  local path
  path=$(sed -n 's/^[[:space:]]*outbound_socket[[:space:]]*=[[:space:]]*//p' "$dir/svc.conf" 2>/dev/null | tail -n 1)
  printf '%s\n' "${path:-$dir/svc-fcgi.sock}"
}

render_nginx() {
  local user_line="" access_log="access_log $dir/nginx-access.log;"
  [ "$(id -u)" -eq 0 ] && user_line="user root;"
  [ "${SVC_ACCESS_LOG:-}" = "off" ] && access_log="access_log off;"
  sed -e "s|@PREFIX@|$dir|g" -e "s|@HTTP_PORT@|$http_port|g" -e "s|@FCGI_SOCKET@|$dir/svc-fcgi.sock|g" \
    -e "s|@HASHING_SOCKET@|$(hashing_socket)|g" \
    -e "s|@OUTBOUND_SOCKET@|$(outbound_socket)|g" \
    -e "s|@USER_LINE@|$user_line|g" -e "s|@ACCESS_LOG@|$access_log|g" \
    -e "s|@SOURCE_DIR@|$repo|g" "$repo/nginx/stack.conf.in" >"$dir/nginx.conf"
  if [ -n "${SVC_NGINX_INCLUDE:-}" ]; then
    # Before the closing brace of http{} (the file's last line that is just "}").
    awk -v inc="    include ${SVC_NGINX_INCLUDE};" \
      '{ line[NR] = $0; if ($0 ~ /^}[[:space:]]*$/) last = NR }
       END { for (i = 1; i <= NR; i++) { if (i == last) print inc; print line[i] } }' \
      "$dir/nginx.conf" >"$dir/nginx.conf.tmp" && mv "$dir/nginx.conf.tmp" "$dir/nginx.conf"
  fi
  mkdir -p "$dir/nginx-tmp"
}

ports() {
  if [ -f "$dir/env" ]; then
    # shellcheck disable=SC1091
    . "$dir/env"
    http_port=$SVC_HTTP_PORT smtp_port=$SVC_SMTP_PORT sms_port=$SVC_SMS_PORT push_port=$SVC_PUSH_PORT
    return
  fi
  http_port=${SVC_HTTP_PORT:-8080}
  [ "$http_port" = "0" ] && http_port=$(free_port)
  smtp_port=$(free_port) sms_port=$(free_port) push_port=$(free_port)
  cat >"$dir/env" <<ENV
SVC_HTTP_PORT=$http_port
SVC_SMTP_PORT=$smtp_port
SVC_SMS_PORT=$sms_port
SVC_PUSH_PORT=$push_port
SVC_STACK_DIR=$dir
SVC_CONFIG=$dir/svc.conf
SVC_MYSQL_SOCKET=$dir/mysql.sock
SVC_BIN_DIR=$bin
ENV
}

# What stops this stack: `make stop` only for the default state directory
# (make knows no other), else stack.sh down with this one.
stop_command() {
  if [ "$dir" = "$repo/.run" ]; then
    printf 'make stop\n'
  else
    printf 'SVC_STACK_DIR=%q %q down\n' "$dir" "$repo/scripts/stack.sh"
  fi
}

up() {
  for b in svc-fcgi svc-admin svc-sender; do
    [ -x "$bin/$b" ] || die "$bin/$b is missing: build first (make)"
  done
  mkdir -p "$run" "$dir/mail"
  ports
  start_mariadb
  write_config
  write_front_secret
  migrate_and_seed
  start_bg smtp-sink "$dir/smtp-sink.log" "$py" "$repo/scripts/sinks/smtp_sink.py" --host 127.0.0.1 \
    --port "$smtp_port" --dir "$dir/mail"
  start_bg sms-sink "$dir/sms-sink.log" "$py" "$repo/scripts/sinks/http_sink.py" --host 127.0.0.1 \
    --port "$sms_port" --log "$dir/sms.log"
  start_bg push-sink "$dir/push-sink.log" "$py" "$repo/scripts/sinks/http_sink.py" --host 127.0.0.1 \
    --port "$push_port" --log "$dir/push.log"
  start_bg svc-fcgi "$dir/svc-fcgi.log" "$bin/svc-fcgi" --config "$dir/svc.conf"
  wait_for 20 svc-fcgi test -S "$dir/svc-fcgi.sock"
  wait_for 20 "svc-fcgi hashing pool" test -S "$(hashing_socket)"
  wait_for 20 "svc-fcgi outbound pool" test -S "$(outbound_socket)"
  local sender_loop=${SVC_SENDER_LOOP:-1}
  # No probe of the sender's --help: a changed help text would silently
  # skip every delivery test (issue 28). The build always has --loop.
  if [ "$sender_loop" != "0" ]; then
    start_bg svc-sender "$dir/svc-sender.log" "$bin/svc-sender" --config "$dir/svc.conf" --loop "$sender_loop"
  fi
  if ! alive nginx; then
    render_nginx
    nginx -c "$dir/nginx.conf" -p "$dir" -g "daemon off;" >>"$dir/nginx-stderr.log" 2>&1 &
    echo $! >"$run/nginx.pid"
  fi
  wait_for 20 nginx curl -fsS "http://127.0.0.1:$http_port/health"
  wait_for 10 "SMTP sink" "$py" -c "import socket; socket.create_connection(('127.0.0.1', $smtp_port), 1)"
  wait_for 10 "SMS sink" "$py" -c "import socket; socket.create_connection(('127.0.0.1', $sms_port), 1)"
  cat <<TXT
svc is running at http://127.0.0.1:$http_port  (state and logs in $dir; stop with: $(stop_command))

  curl -s http://127.0.0.1:$http_port/health
  curl -s -X POST http://127.0.0.1:$http_port/auth/login -H 'Content-Type: application/json' \\
       -d '{"email":"demo@example.com","password":"Demo@2026!","appID":1}'
  curl -s -X POST http://127.0.0.1:$http_port/message/notification -H 'Content-Type: application/json' \\
       -H 'site-id: 1' -H "x-site-key: $(site_key)" -d '{"event":"welcome-email","email":"you@example.com","data":{"name":"Ada"}}'

The demo site's key (x-site-key) is SITE_KEY in $dir/env.
The demo site's owner (site administration, docs/api.md): owner@example.com, password Demo@2026!,
TOTP secret $demo_owner_totp (a code: oathtool --totp -b $demo_owner_totp).
The site console (docs/console.md): http://127.0.0.1:$http_port/console/?site=1 (sign in as the owner).
Worker pools: main $(conf_value workers), hashing $(conf_value hashing_workers) (login, sign-up, reset-pass),
outbound $(conf_value outbound_workers) (sendPush, notification, user-sms-code; per site $(conf_value per_site)).
E-mails land in $dir/mail/*.eml, SMS in $dir/sms.log, pushes in $dir/push.log.
TXT
}


down() {
  stop_pid nginx QUIT
  stop_pid svc-sender TERM
  stop_pid svc-fcgi TERM
  stop_pid push-sink TERM
  stop_pid sms-sink TERM
  stop_pid smtp-sink TERM
  stop_pid mariadb TERM
  say "stopped (state kept in $dir)"
}

status() {
  local name
  for name in mariadb svc-fcgi nginx smtp-sink sms-sink push-sink svc-sender; do
    if alive "$name"; then printf '%-10s running (pid %s)\n' "$name" "$(cat "$run/$name.pid")"
    else printf '%-10s stopped\n' "$name"; fi
  done
}

case "${1:-}" in
  up)
    up
    if [ "${2:-}" = "--foreground" ]; then
      trap down INT TERM
      say "foreground: Ctrl-C stops the stack"
      tail -n 0 -F "$dir/svc-fcgi.log" &
      wait
    fi
    ;;
  down) mkdir -p "$run"; down ;;
  db-stop) mkdir -p "$run"; stop_pid mariadb TERM ;;   # for the /health 503 test
  db-start) mkdir -p "$run"; start_mariadb ;;
  status) mkdir -p "$run"; status ;;
  *) echo "usage: $0 up [--foreground] | down | status | db-stop | db-start" >&2; exit 2 ;;
esac
