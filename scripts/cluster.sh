#!/usr/bin/env bash
# A local scale-out cluster on one machine (issue 11): three MariaDB Galera
# nodes and two app hosts, each in its own network namespace on one bridge,
# a front nginx in the root namespace whose upstreams hold both app hosts,
# and an SMTP sink (plus an SMS sink) on the bridge address. Needs root.
#
#   scripts/cluster.sh up [--fresh] start from nothing (or restart a stopped
#                                  cluster's state); prints the front URL and
#                                  writes $SVC_CLUSTER_DIR/cluster.env
#   scripts/cluster.sh down        stop everything, remove namespaces, veths
#                                  and the bridge (the state directory stays)
#   scripts/cluster.sh clean       down, then delete the state directory
#   scripts/cluster.sh status      each node's wsrep state, each host's processes
#   fault verbs (N = 1..3 for db, 1..2 for app):
#     kill-app N     kill -9 every process of app host N (svc-fcgi, svc-sender)
#     start-app N    start svc-fcgi and svc-sender on app host N again
#     restart-app N  a rolling restart of app host N: the front nginx stops
#                    sending it requests (reload without it), its open requests
#                    finish, svc-fcgi gets SIGTERM and starts again, and the
#                    front takes it back (docs/deploy.md, "Upgrades")
#     kill-workers N kill -9 the workers of app host N's svc-fcgi (not the
#                    master, which respawns them)
#     kill-sender N  kill -9 svc-sender on app host N;  start-sender N
#     kill-db N      kill -9 mariadbd of node N
#     stop-db N      stop node N cleanly: it leaves the cluster, which shrinks (no quorum lost)
#     start-db N     start node N again; it rejoins by IST (or SST) by itself
#     wipe-db N      kill -9 node N and empty its datadir (start-db N then rejoins by SST)
#     partition-db N cut node N off the other two DB nodes (the app hosts still
#                    reach it and find a non-Primary node);  heal-db N
#     front PORT APPS  an extra front nginx on 127.0.0.1:PORT whose upstreams
#                    hold only the app hosts listed (e.g. "1"); stopped by down
#
# Environment (read on the first `up`, then kept in $SVC_CLUSTER_DIR/settings):
#   SVC_CLUSTER_DIR   state directory (default: <repo>/.cluster)
#   SVC_CLUSTER_NAME  prefix of namespace, veth and bridge names, [a-z0-9], at
#                     most 8 characters (default svcc)
#   SVC_CLUSTER_NET   first three octets of the cluster's /24 (default 10.231.0):
#                     .1 bridge (front nginx, sinks), .11-.13 DB nodes, .21-.22 app hosts
#   SVC_CLUSTER_PORT  front nginx port on 127.0.0.1 (default 0 = any free port)
#   SVC_BIN_DIR       svc-fcgi, svc-admin, svc-sender (default: <repo>/build)
#   SVC_CLUSTER_WORKERS  workers per app host and pool (default 2)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${SVC_CLUSTER_DIR:-$repo/.cluster}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
py=/usr/bin/python3
run="$dir/pids"
DB_NODES=(1 2 3)
# Shorter failure detection than Galera's defaults (suspect 5 s, inactive 15 s)
# so the fault tests finish sooner; a gcache that keeps IST possible after a
# short absence.
PROVIDER_OPTIONS="gcache.size=128M; evs.keepalive_period=PT1S; evs.suspect_timeout=PT3S; evs.inactive_timeout=PT6S; evs.inactive_check_period=PT0.5S; evs.install_timeout=PT5S"
APP_HOSTS=(1 2)
FCGI_PORT=9000
HASHING_PORT=9001
OUTBOUND_PORT=9002

lib_name=cluster
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"

[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, veth pairs, a bridge)"

# --- settings, kept so every later verb uses the names of the first `up` ----
load_settings() {
  if [ -f "$dir/settings" ]; then
    # shellcheck disable=SC1091
    . "$dir/settings"
  else
    name=${SVC_CLUSTER_NAME:-svcc}
    net=${SVC_CLUSTER_NET:-10.231.0}
    port=${SVC_CLUSTER_PORT:-0}
    bin=${SVC_BIN_DIR:-$repo/build}
    workers=${SVC_CLUSTER_WORKERS:-2}
  fi
  [[ "$name" =~ ^[a-z0-9]{1,8}$ ]] || die "SVC_CLUSTER_NAME must be 1-8 of [a-z0-9] (interface names are short)"
  [[ "$net" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "SVC_CLUSTER_NET must look like 10.231.0"
  bin="$(cd "$bin" 2>/dev/null && pwd || echo "$bin")"
}

save_settings() {
  [ -f "$dir/settings" ] && return
  [ "$port" = "0" ] && port=$(free_port)
  cat >"$dir/settings" <<ENV
name=$name
net=$net
port=$port
bin=$bin
workers=$workers
ENV
}

# After `up --fresh` removed the state: the names come from the environment again.
unset_settings() { rm -f "$dir/settings"; load_settings; }

bridge() { echo "${name}br"; }
db_ns() { echo "$name-db$1"; }
app_ns() { echo "$name-app$1"; }
db_addr() { echo "$net.1$1"; }
app_addr() { echo "$net.2$1"; }
host_addr() { echo "$net.1"; }
db_dir() { echo "$dir/db$1"; }
db_sock() { echo "$dir/db$1/mysql.sock"; }
app_conf() { echo "$dir/app$1/svc.conf"; }

# --- network ---------------------------------------------------------------
ns_exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

add_ns() {  # add_ns NAMESPACE VETH ADDRESS
  local ns=$1 veth=$2 addr=$3
  ns_exists "$ns" && return
  ip netns add "$ns"
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  ip link set "$veth" master "$(bridge)" up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
}

net_up() {
  if ! ip link show "$(bridge)" >/dev/null 2>&1; then
    ip link add "$(bridge)" type bridge
    ip addr add "$(host_addr)/24" dev "$(bridge)"
    ip link set "$(bridge)" up
  fi
  local n
  for n in "${DB_NODES[@]}"; do add_ns "$(db_ns "$n")" "${name}d$n" "$(db_addr "$n")"; done
  for n in "${APP_HOSTS[@]}"; do add_ns "$(app_ns "$n")" "${name}a$n" "$(app_addr "$n")"; done
}

net_down() {
  local n
  for n in "${DB_NODES[@]}"; do ns_exists "$(db_ns "$n")" && ip netns del "$(db_ns "$n")"; done
  for n in "${APP_HOSTS[@]}"; do ns_exists "$(app_ns "$n")" && ip netns del "$(app_ns "$n")"; done
  for n in "${DB_NODES[@]}"; do ip link del "${name}d$n" 2>/dev/null || true; done
  for n in "${APP_HOSTS[@]}"; do ip link del "${name}a$n" 2>/dev/null || true; done
  ip link del "$(bridge)" 2>/dev/null || true
}

# kill -SIG every process inside a namespace (a host that dies).
kill_ns() {  # kill_ns NAMESPACE SIGNAL
  local pids
  ns_exists "$1" || return 0
  pids=$(ip netns pids "$1" 2>/dev/null || true)
  [ -n "$pids" ] && kill "-$2" $pids 2>/dev/null || true
}

# --- MariaDB Galera --------------------------------------------------------
mysql_node() { local n=$1; shift; mariadb --no-defaults --socket="$(db_sock "$n")" -uroot "$@"; }
node_state() { mysql_node "$1" -N -B -e "SHOW STATUS LIKE 'wsrep_local_state'" 2>/dev/null | awk '{print $2}'; }
node_synced() { [ "$(node_state "$1")" = "4" ]; }

write_db_conf() {
  local n=$1 d
  d=$(db_dir "$n")
  mkdir -p "$d/data"
  [ -f "$d/my.cnf" ] && return
  local peers="" m
  for m in "${DB_NODES[@]}"; do peers="$peers${peers:+,}$(db_addr "$m")"; done
  cat >"$d/my.cnf" <<CNF
# Galera node $n of the local cluster (scripts/cluster.sh), namespace $(db_ns "$n").
[mysqld]
user = root
datadir = $d/data
socket = $d/mysql.sock
pid-file = $d/mysql.pid
log-error = $d/mariadb.log
bind-address = $(db_addr "$n")
port = 3306
character-set-server = utf8mb4
collation-server = utf8mb4_unicode_ci
max_connections = 300
innodb_buffer_pool_size = 64M
innodb_log_file_size = 32M
innodb_flush_log_at_trx_commit = 2
# What Galera requires: row-based events, interleaved auto-increment locks.
binlog_format = ROW
default_storage_engine = InnoDB
innodb_autoinc_lock_mode = 2
wsrep_on = ON
wsrep_provider = /usr/lib/galera/libgalera_smm.so
wsrep_cluster_name = $name
wsrep_cluster_address = gcomm://$peers
wsrep_node_address = $(db_addr "$n")
wsrep_node_name = db$n
wsrep_sst_method = mariabackup
wsrep_sst_auth = sst:$sst_password
wsrep_slave_threads = 2
# Failure detection shortened for the fault tests (see PROVIDER_OPTIONS in cluster.sh).
wsrep_provider_options = "$PROVIDER_OPTIONS"
# Clients reach the node over TLS only (docs/cluster.md): a certificate of
# the cluster's CA for this node's address; a connection without TLS is
# refused (a unix socket counts as secure: root's admin work, the SST).
ssl_ca = $dir/tls/ca.pem
ssl_cert = $d/server.pem
ssl_key = $d/server.key
require_secure_transport = ON

[sst]
sockopt = ",reuseaddr"
CNF
}

start_node() {  # start_node N [--wsrep-new-cluster]
  local n=$1 extra=() d pos
  shift
  d=$(db_dir "$n")
  if alive "db$n"; then return; fi
  if [ -f "$d/data/grastate.dat" ] && [ $# -eq 0 ]; then
    # After a crash grastate.dat says seqno -1: recover the position from
    # InnoDB (what galera_recovery does for systemd) so the node asks for IST.
    if grep -q '^seqno: *-1' "$d/data/grastate.dat"; then
      ip netns exec "$(db_ns "$n")" mariadbd --defaults-file="$d/my.cnf" --wsrep-recover \
        --log-error="$d/wsrep-recover.log" >/dev/null 2>&1 || true
      pos=$(sed -n 's/.*WSREP: Recovered position: *//p' "$d/wsrep-recover.log" | tail -n 1)
      [ -n "$pos" ] && extra+=("--wsrep-start-position=$pos")
    fi
  fi
  [ "${1:-}" = "--seeded" ] && shift
  ip netns exec "$(db_ns "$n")" mariadbd --defaults-file="$d/my.cnf" "$@" "${extra[@]}" \
    >>"$d/mariadbd-stdout.log" 2>&1 &
  echo $! >"$run/db$n.pid"
}

wait_synced() {  # wait_synced N SECONDS
  local n=$1 secs=$2 end=$((SECONDS + $2))
  while [ "$SECONDS" -lt "$end" ]; do
    node_synced "$n" && return 0
    alive "db$n" || die "MariaDB node $n exited (see $(db_dir "$n")/mariadb.log)"
    sleep 0.2
  done
  die "MariaDB node $n not Synced within ${secs}s (see $(db_dir "$n")/mariadb.log)"
}

# The node to bootstrap a stopped cluster from: the one grastate.dat marks
# safe_to_bootstrap (the last to stop cleanly), else node 1.
bootstrap_node() {
  local n
  for n in "${DB_NODES[@]}"; do
    if grep -q '^safe_to_bootstrap: *1' "$(db_dir "$n")/data/grastate.dat" 2>/dev/null; then echo "$n"; return; fi
  done
  echo 1
}

# The cluster's CA and one server certificate per DB node (its bridge
# address as IP and as DNS name: Connector/C checks the name it dialled).
# Made once; kept with the state directory.
make_tls() {
  local n d
  mkdir -p "$dir/tls"
  if [ ! -s "$dir/tls/ca.pem" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -subj "/CN=$name cluster CA" -keyout "$dir/tls/ca.key" -out "$dir/tls/ca.pem" >/dev/null 2>&1 \
      || die "openssl could not make the cluster CA"
  fi
  for n in "${DB_NODES[@]}"; do
    d=$(db_dir "$n")
    mkdir -p "$d"
    [ -s "$d/server.pem" ] && continue
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$(db_addr "$n")" \
      -keyout "$d/server.key" -out "$d/server.csr" >/dev/null 2>&1 || die "openssl: no key for node $n"
    printf 'subjectAltName=IP:%s,DNS:%s\nbasicConstraints=CA:FALSE\n' "$(db_addr "$n")" "$(db_addr "$n")" >"$d/server.ext"
    openssl x509 -req -in "$d/server.csr" -CA "$dir/tls/ca.pem" -CAkey "$dir/tls/ca.key" -CAcreateserial \
      -days 3650 -extfile "$d/server.ext" -out "$d/server.pem" >/dev/null 2>&1 || die "openssl: no certificate for node $n"
    chmod 600 "$d/server.key"
  done
  chmod 600 "$dir/tls/ca.key"
}

db_up() {
  local n first fresh=0
  make_tls
  [ -f "$dir/secrets" ] || printf 'sst_password=%s\ndb_password=%s\nmerge_password=%s\n' \
    "$(secret)" "$(secret)" "$(secret)" >"$dir/secrets"
  # shellcheck disable=SC1091
  . "$dir/secrets"
  for n in "${DB_NODES[@]}"; do write_db_conf "$n"; done
  if [ ! -d "$(db_dir 1)/data/mysql" ]; then
    fresh=1
    say "initialising MariaDB node 1"
    mariadb-install-db --no-defaults --datadir="$(db_dir 1)/data" --user=root \
      --auth-root-authentication-method=normal --skip-test-db >"$dir/mariadb-install.log" 2>&1 \
      || die "mariadb-install-db failed (see $dir/mariadb-install.log)"
  fi
  if [ "$fresh" = 1 ]; then first=1; else first=$(bootstrap_node); fi
  if ! node_synced "$first" && ! any_db_running; then
    sed -i 's/^safe_to_bootstrap: *0/safe_to_bootstrap: 1/' "$(db_dir "$first")/data/grastate.dat" 2>/dev/null || true
    say "bootstrapping the Galera cluster on node $first"
    start_node "$first" --wsrep-new-cluster
  fi
  wait_synced "$first" 60
  if [ "$fresh" = 1 ]; then
    mysql_node 1 <<SQL
CREATE USER IF NOT EXISTS 'sst'@'localhost' IDENTIFIED BY '$sst_password';
GRANT RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR ON *.* TO 'sst'@'localhost';
CREATE DATABASE IF NOT EXISTS svc CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS 'svc'@'$net.%' IDENTIFIED BY '$db_password';
GRANT ALL PRIVILEGES ON svc.* TO 'svc'@'$net.%';
CREATE USER IF NOT EXISTS 'svc_merge'@'$net.%' IDENTIFIED BY '$merge_password';
SQL
  fi
  if [ "$fresh" = 1 ]; then seed_joiners; fi
  wait_synced "$first" 120
  # The others join: by IST when their state is close enough to the donor's
  # gcache, otherwise by a full SST (mariabackup) from a donor.
  for n in "${DB_NODES[@]}"; do [ "$n" = "$first" ] || start_node "$n"; done
  for n in "${DB_NODES[@]}"; do [ "$n" = "$first" ] || wait_synced "$n" 180; done
}

# A fresh cluster's joiners start from a copy of node 1's datadir taken while
# node 1 is cleanly stopped (a cold SST), and all three nodes start with a
# saved view (gvwstate.dat) that names the three of them as the last Primary
# Component: Galera's pc.recovery re-forms it as soon as all three are
# connected, at the same position, so no state transfer runs at all. (A
# joiner of a running cluster always runs the SST script, even for an IST,
# and that script costs 20-60 s per node on 2 busy cores: two of them do not
# fit `up` in 90 s.) Every later rejoin (start-db, wipe-db) is by IST or by a
# real mariabackup SST.
seed_joiners() {
  local n uuids=() view
  stop_pid db1 TERM 60
  for n in "${DB_NODES[@]}"; do uuids+=("$("$py" -c 'import uuid; print(uuid.uuid1())')"); done
  view="#vwbeg
view_id: 3 ${uuids[0]} 1
bootstrap: 0"
  for n in "${DB_NODES[@]}"; do view="$view
member: ${uuids[$((n - 1))]} 0"; done
  view="$view
#vwend"
  sed -i 's/^safe_to_bootstrap: *1/safe_to_bootstrap: 0/' "$(db_dir 1)/data/grastate.dat"
  for n in "${DB_NODES[@]}"; do
    if [ "$n" != 1 ]; then
      rm -rf "$(db_dir "$n")/data"
      cp -a "$(db_dir 1)/data" "$(db_dir "$n")/data"
    fi
    printf 'my_uuid: %s\n%s\n' "${uuids[$((n - 1))]}" "$view" >"$(db_dir "$n")/data/gvwstate.dat"
  done
  for n in "${DB_NODES[@]}"; do start_node "$n" --seeded; done
}

any_db_running() { local n; for n in "${DB_NODES[@]}"; do alive "db$n" && return 0; done; return 1; }

# --- app hosts -------------------------------------------------------------
# The DB nodes app host N tries, in order: app 1 starts at node 3, app 2 at
# node 2 (node 1 also takes the admin work), so the tests' kill-db 2 and
# partition-db 3 each hit the first node of one app host.
app_nodes() { local s=$(((3 - $1) % 3 + 1)); echo "$s $((s % 3 + 1)) $(((s + 1) % 3 + 1))"; }

write_app_conf() {  # write_app_conf N  (needs keys.conf, ports, secrets)
  local n=$1 a m own first="" rest="" db
  a=$(app_addr "$n")
  own=$(app_nodes "$n" | cut -d' ' -f1)
  # The node list: all three nodes, this host's "own" node first.
  for m in $(app_nodes "$n"); do
    if [ -z "$first" ]; then first="$(db_addr "$m"):3306"; else rest="$rest, $(db_addr "$m"):3306"; fi
  done
  # Per node: a node that does not answer is passed quickly. Every node
  # requires TLS; their certificates come from the cluster's CA.
  db="hosts = $first$rest
host = $(db_addr "$own")
port = 3306
connect_timeout = 2
ssl_ca = $dir/tls/ca.pem"
  mkdir -p "$dir/app$n"
  render_config "$(app_conf "$n")" \
    "TITLE=App host $n of the local cluster (scripts/cluster.sh), namespace $(app_ns "$n")" \
    "SERVER=# FastCGI over TCP on this host's own address; only the front nginx
# (the bridge address) may connect.
socket = $a:$FCGI_PORT
hashing_socket = $a:$HASHING_PORT
outbound_socket = $a:$OUTBOUND_PORT
allowed_peers = $(host_addr)/32
workers = $workers
hashing_workers = $workers
outbound_workers = ${SVC_CLUSTER_OUTBOUND_WORKERS:-4}
# The front nginx passes this secret (svc-front-secret.conf in its prefix).
front_secret_file = $dir/front-secret" \
    "MAX_REQUESTS=10000" \
    "DATABASE=$db
# Read-your-writes across nodes (wsrep_sync_wait); reads_writes is the default, written out.
sync_wait = reads_writes" "DB_PASSWORD=$db_password" \
    "MERGE_DATABASE=$db" "MERGE_PASSWORD=$merge_password" \
    "RESET_PAGE=http://127.0.0.1:$port/account/reset" \
    "KEYS=$(cat "$dir/keys.conf")" \
    "SMTP_HOST=$(host_addr)" "SMTP_PORT=$smtp_port" "SMS_HOST=$(host_addr)" "SMS_PORT=$sms_port" "SMTP_MORE=" \
    "PUSH=" "MORE="
}

start_app() {  # start_app N
  local n=$1 ns a
  ns=$(app_ns "$n")
  a=$(app_addr "$n")
  start_bg "app$n-fcgi" "$dir/app$n/svc-fcgi.log" ip netns exec "$ns" "$bin/svc-fcgi" --config "$(app_conf "$n")"
  start_sender "$n"
}

start_sender() {
  start_bg "app$1-sender" "$dir/app$1/svc-sender.log" ip netns exec "$(app_ns "$1")" \
    "$bin/svc-sender" --config "$(app_conf "$1")" --loop "${SVC_SENDER_LOOP:-1}"
}

app_listening() {  # app_listening N: the three pools accept on the host's address
  ip netns exec "$(app_ns "$1")" "$py" -c "
import socket
for p in ($FCGI_PORT, $HASHING_PORT, $OUTBOUND_PORT):
    socket.create_connection(('$(app_addr "$1")', p), 1).close()"
}

seed() {
  local conf
  conf=$(app_conf 1)
  "$bin/svc-admin" --config "$conf" migrate --sql-dir "$repo/sql" >"$dir/migrate.log" 2>&1 \
    || { cat "$dir/migrate.log" >&2; die "svc-admin migrate failed"; }
  mysql_node 1 svc <"$repo/sql/seed/demo_tables.sql"
  mysql_node 1 <<SQL
GRANT SELECT ON svc.demo_orders TO 'svc_merge'@'$net.%';
GRANT SELECT ON svc.svc_folders TO 'svc_merge'@'$net.%';
SQL
  if [ "$(mysql_node 1 -N svc -e 'SELECT COUNT(*) FROM svc_sites WHERE id = 1')" = "0" ]; then
    say "seeding demo site 1, demo user and templates"
    "$bin/svc-admin" --config "$conf" site create --id 1 --name Demo --domain localhost --user-pool default \
      --reset-url "http://127.0.0.1:$port/account/reset" \
      --email-from "Demo <no-reply@demo.example>" --vapid-subject "mailto:admin@demo.example" >"$dir/site-create.out"
    sed -n 's/^site_key: //p' "$dir/site-create.out" >"$dir/site-key"
    rm -f "$dir/site-create.out"
    [ -s "$dir/site-key" ] || die "svc-admin printed no site key for the demo site"
    printf '%s\n' 'Demo@2026!' | "$bin/svc-admin" --config "$conf" user create \
      --email demo@example.com --first Demo --last User --role admin --mobile +15550100 --verified >/dev/null
    mysql_node 1 svc <"$repo/sql/seed/demo.sql"
  fi
}

# --- front nginx and sinks --------------------------------------------------
render_front() {  # render_front OUT PORT "APP NUMBERS" PREFIX
  local out=$1 fport=$2 apps=$3 prefix=$4 n fcgi="" hashing="" outbound=""
  for n in $apps; do
    fcgi="$fcgi        server $(app_addr "$n"):$FCGI_PORT max_fails=1 fail_timeout=5s;\n"
    hashing="$hashing        server $(app_addr "$n"):$HASHING_PORT max_fails=1 fail_timeout=5s;\n"
    outbound="$outbound        server $(app_addr "$n"):$OUTBOUND_PORT max_fails=1 fail_timeout=5s;\n"
  done
  mkdir -p "$prefix/nginx-tmp"
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@HTTP_PORT@|$fport|g" -e "/^#/!s|@FCGI_SERVERS@|$fcgi|" \
    -e "/^#/!s|@HASHING_SERVERS@|$hashing|" -e "/^#/!s|@OUTBOUND_SERVERS@|$outbound|" -e "s|@ACCESS_LOG@|${SVC_CLUSTER_ACCESS_LOG:-access_log $prefix/nginx-access.log;}|" \
    -e "s|@SOURCE_DIR@|$repo|g" "$repo/nginx/cluster.conf.in" >"$out"
}

# The front secret (docs/deploy.md): made once; every app host reads it
# ([server] front_secret_file), every front nginx passes it from a 0600
# include in its prefix.
make_front_secret() {
  [ -s "$dir/front-secret" ] || (umask 077 && "$py" -c 'import secrets; print(secrets.token_urlsafe(32))' \
    >"$dir/front-secret")
}

start_front() {  # start_front PNAME PORT "APPS" PREFIX
  local pname=$1 fport=$2 apps=$3 prefix=$4
  alive "$pname" && return
  mkdir -p "$prefix"
  (umask 077 && printf 'fastcgi_param  SVC_FRONT_SECRET  "%s";\n' "$(cat "$dir/front-secret")" \
    >"$prefix/svc-front-secret.conf")
  render_front "$prefix/nginx.conf" "$fport" "$apps" "$prefix"
  nginx -c "$prefix/nginx.conf" -p "$prefix" -e "$prefix/nginx-error.log" -g "daemon off;" \
    >>"$prefix/nginx-stderr.log" 2>&1 &
  echo $! >"$run/$pname.pid"
}

# The front nginx with only the app hosts listed. A reload lets its old
# workers finish their requests (no request is cut); this returns once they
# all exited, so no request to a host left out is still open.
front_hosts() {  # front_hosts "APP NUMBERS"
  local master old
  master=$(cat "$run/front.pid")
  old=$(pgrep -P "$master" | tr '\n' ' ')
  render_front "$dir/front/nginx.conf" "$port" "$1" "$dir/front"
  kill -HUP "$master"
  wait_for 60 "the front's reload" front_workers_replaced "$master" "$old"
}

front_workers_replaced() {  # front_workers_replaced MASTER "OLD WORKER PIDS"
  local pid now
  now=$(pgrep -P "$1" | tr '\n' ' ')
  [ -n "$now" ] || return 1
  for pid in $2; do case " $now " in *" $pid "*) return 1 ;; esac; done
}

app_idle() {  # app_idle N: no FastCGI connection to app host N is open
  [ -z "$(ip netns exec "$(app_ns "$1")" ss -Htn state established \
    "( sport = :$FCGI_PORT or sport = :$HASHING_PORT or sport = :$OUTBOUND_PORT )")" ]
}

restart_app() {  # restart_app N
  local n=$1 m others=""
  for m in "${APP_HOSTS[@]}"; do [ "$m" = "$n" ] || others="$others $m"; done
  front_hosts "$others"
  wait_for 60 "app host $n to finish its requests" app_idle "$n"
  stop_pid "app$n-fcgi" TERM 30
  start_app "$n"
  wait_for 30 "svc-fcgi on app host $n" app_listening "$n"
  front_hosts "${APP_HOSTS[*]}"
  say "app host $n drained and restarted"
}

tcp_open() { "$py" -c "import socket; socket.create_connection(('$1', $2), 1).close()"; }

write_env() {
  local n
  {
    echo "FRONT_URL=http://127.0.0.1:$port"
    echo "FRONT_PORT=$port"
    echo "SVC_CLUSTER_DIR=$dir"
    echo "SVC_CLUSTER_NAME=$name"
    echo "SVC_CLUSTER_NET=$net"
    echo "SVC_BIN_DIR=$bin"
    echo "SVC_SOURCE_DIR=$repo"
    echo "APP_HOSTS=${APP_HOSTS[*]}"
    for n in "${APP_HOSTS[@]}"; do
      echo "APP${n}_NS=$(app_ns "$n")"
      echo "APP${n}_ADDR=$(app_addr "$n")"
      echo "APP${n}_CONFIG=$(app_conf "$n")"
      echo "APP${n}_FCGI=$(app_addr "$n"):$FCGI_PORT"
      echo "APP${n}_HASHING=$(app_addr "$n"):$HASHING_PORT"
      echo "APP${n}_OUTBOUND=$(app_addr "$n"):$OUTBOUND_PORT"
    done
    echo "DB_NODES=${DB_NODES[*]}"
    for n in "${DB_NODES[@]}"; do
      echo "DB${n}_NS=$(db_ns "$n")"
      echo "DB${n}_ADDR=$(db_addr "$n"):3306"
      echo "DB${n}_SOCKET=$(db_sock "$n")"
    done
    echo "SITE_ID=1"
    echo "SITE_KEY=$(cat "$dir/site-key")"
    echo "MAIL_DIR=$dir/mail"
    echo "SMTP_ADDR=$(host_addr):$smtp_port"
    echo "SMS_LOG=$dir/sms.log"
  } >"$dir/cluster.env"
}

ports() {
  if [ ! -f "$dir/ports" ]; then
    printf 'smtp_port=%s\nsms_port=%s\n' "$(free_port)" "$(free_port)" >"$dir/ports"
  fi
  # shellcheck disable=SC1091
  . "$dir/ports"
}

is_up() {
  local n
  alive front || return 1
  for n in "${DB_NODES[@]}"; do alive "db$n" || return 1; done
  for n in "${APP_HOSTS[@]}"; do alive "app$n-fcgi" || return 1; done
  return 0
}

up() {
  local t0=$SECONDS n
  for b in svc-fcgi svc-admin svc-sender; do
    [ -x "$bin/$b" ] || die "$bin/$b is missing: build first (make)"
  done
  [ -f /usr/lib/galera/libgalera_smm.so ] || die "galera-4 is missing (scripts/install-deps.sh)"
  command -v mariadb-backup >/dev/null || die "mariadb-backup is missing (scripts/install-deps.sh)"
  if is_up; then
    say "already up: http://127.0.0.1:$port (state in $dir)"
    echo "http://127.0.0.1:$port"
    return
  fi
  save_settings
  mkdir -p "$run" "$dir/mail"
  ports
  net_up
  start_bg smtp-sink "$dir/smtp-sink.log" "$py" "$repo/scripts/sinks/smtp_sink.py" --host "$(host_addr)" \
    --port "$smtp_port" --dir "$dir/mail" --delay-ms "${SVC_CLUSTER_SMTP_DELAY_MS:-5}"
  start_bg sms-sink "$dir/sms-sink.log" "$py" "$repo/scripts/sinks/http_sink.py" --host "$(host_addr)" \
    --port "$sms_port" --log "$dir/sms.log"
  db_up
  [ -f "$dir/keys.conf" ] || "$bin/svc-admin" keygen | grep -v '^#' >"$dir/keys.conf"
  # keys.conf from before signed access tokens: add the key that seals them.
  grep -q '^signing_kek' "$dir/keys.conf" || "$bin/svc-admin" keygen | grep '^signing_kek = ' >>"$dir/keys.conf"
  make_front_secret
  for n in "${APP_HOSTS[@]}"; do write_app_conf "$n"; done
  seed
  for n in "${APP_HOSTS[@]}"; do start_app "$n"; done
  for n in "${APP_HOSTS[@]}"; do wait_for 30 "svc-fcgi on app host $n" app_listening "$n"; done
  start_front front "$port" "${APP_HOSTS[*]}" "$dir/front"
  wait_for 20 "front nginx" curl -fsS "http://127.0.0.1:$port/health"
  wait_for 10 "SMTP sink" tcp_open "$(host_addr)" "$smtp_port"
  write_env
  say "up in $((SECONDS - t0)) s; state in $dir, settings in $dir/cluster.env"
  echo "http://127.0.0.1:$port"
}

down() {
  local n f
  for f in "$run"/front*.pid; do [ -e "$f" ] && stop_pid "$(basename "$f" .pid)" QUIT; done
  for n in "${APP_HOSTS[@]}"; do
    stop_pid "app$n-sender" TERM 10
    stop_pid "app$n-fcgi" TERM 15
    kill_ns "$(app_ns "$n")" KILL
  done
  # Node 1 last, so it stops as the cluster's last member (safe_to_bootstrap).
  for n in 3 2 1; do
    stop_pid "db$n" TERM 60
    kill_ns "$(db_ns "$n")" KILL
  done
  stop_pid smtp-sink TERM
  stop_pid sms-sink TERM
  net_down
  rm -f "$dir/cluster.env"
  say "down (state kept in $dir)"
}

status() {
  local n pid
  for n in "${DB_NODES[@]}"; do
    if alive "db$n"; then
      printf 'db%s  %-15s %s\n' "$n" "$(db_addr "$n")" "$(mysql_node "$n" -N -B -e "SELECT CONCAT(
        'state=', MAX(IF(VARIABLE_NAME='WSREP_LOCAL_STATE', VARIABLE_VALUE, '')), ' (',
        MAX(IF(VARIABLE_NAME='WSREP_LOCAL_STATE_COMMENT', VARIABLE_VALUE, '')), ') cluster=',
        MAX(IF(VARIABLE_NAME='WSREP_CLUSTER_STATUS', VARIABLE_VALUE, '')), ' size=',
        MAX(IF(VARIABLE_NAME='WSREP_CLUSTER_SIZE', VARIABLE_VALUE, '')), ' ready=',
        MAX(IF(VARIABLE_NAME='WSREP_READY', VARIABLE_VALUE, '')))
        FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME LIKE 'WSREP%'" 2>&1 | head -n 1)"
    else
      printf 'db%s  %-15s stopped\n' "$n" "$(db_addr "$n")"
    fi
  done
  for n in "${APP_HOSTS[@]}"; do
    printf 'app%s %-15s' "$n" "$(app_addr "$n")"
    if ns_exists "$(app_ns "$n")"; then
      local procs=""
      for pid in $(ip netns pids "$(app_ns "$n")" 2>/dev/null); do
        running "$pid" && procs="$procs $(cat "/proc/$pid/comm" 2>/dev/null)[$pid]"
      done
      printf '%s\n' "${procs:- no processes}"
    else
      printf ' no namespace\n'
    fi
  done
  alive front && printf 'front http://127.0.0.1:%s (pid %s)\n' "$port" "$(cat "$run/front.pid")" || printf 'front stopped\n'
  for f in smtp-sink sms-sink; do alive "$f" && printf '%s running\n' "$f" || printf '%s stopped\n' "$f"; done
}

# --- fault verbs ------------------------------------------------------------
need_n() {  # need_n N MAX
  [[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "$2" ] || die "expected a number 1..$2, got '${1:-}'"
}

partition() {  # partition N add|del
  local n=$1 op=$2 m
  for m in "${DB_NODES[@]}"; do
    [ "$m" = "$n" ] && continue
    ip -n "$(db_ns "$n")" route "$op" prohibit "$(db_addr "$m")/32" 2>/dev/null || [ "$op" = del ]
    ip -n "$(db_ns "$m")" route "$op" prohibit "$(db_addr "$n")/32" 2>/dev/null || [ "$op" = del ]
  done
}

load_settings
mkdir -p "$run"
verb=${1:-}
arg=${2:-}
case "$verb" in
  up) if [ "$arg" = "--fresh" ]; then down; rm -rf "$dir"; mkdir -p "$run"; unset_settings; fi; up ;;
  down) down ;;
  clean) down; rm -rf "$dir"; say "removed $dir" ;;
  status) status ;;
  kill-app) need_n "$arg" 2; kill_ns "$(app_ns "$arg")" KILL
    rm -f "$run/app$arg-fcgi.pid" "$run/app$arg-sender.pid"; say "app host $arg killed" ;;
  start-app) need_n "$arg" 2; ports; start_app "$arg"; wait_for 30 "svc-fcgi on app host $arg" app_listening "$arg" ;;
  restart-app) need_n "$arg" 2; ports; restart_app "$arg" ;;
  kill-workers) need_n "$arg" 2; alive "app$arg-fcgi" || die "svc-fcgi of app host $arg is not running"
    pkill -KILL -P "$(cat "$run/app$arg-fcgi.pid")" || true; say "workers of app host $arg killed (the master respawns them)" ;;
  kill-sender) need_n "$arg" 2; stop_pid "app$arg-sender" KILL; say "sender on app host $arg killed" ;;
  start-sender) need_n "$arg" 2; start_sender "$arg" ;;
  kill-db) need_n "$arg" 3; stop_pid "db$arg" KILL; say "MariaDB node $arg killed" ;;
  stop-db) need_n "$arg" 3; stop_pid "db$arg" TERM 120; say "MariaDB node $arg stopped (left the cluster)" ;;
  wipe-db) need_n "$arg" 3; stop_pid "db$arg" KILL; rm -rf "$(db_dir "$arg")/data"; mkdir -p "$(db_dir "$arg")/data"
    say "MariaDB node $arg killed and its datadir emptied: start-db $arg rejoins by SST" ;;
  start-db) need_n "$arg" 3; start_node "$arg"; wait_synced "$arg" 120; say "MariaDB node $arg Synced" ;;
  partition-db) need_n "$arg" 3; partition "$arg" add; say "node $arg cut off from the other DB nodes" ;;
  heal-db) need_n "$arg" 3; partition "$arg" del; say "node $arg reconnected" ;;
  front) [[ "$arg" =~ ^[0-9]+$ ]] || die "usage: $0 front PORT \"APP NUMBERS\""
    start_front "front-$arg" "$arg" "${3:-1}" "$dir/front-$arg"
    wait_for 20 "front nginx on $arg" curl -fsS "http://127.0.0.1:$arg/health"; echo "http://127.0.0.1:$arg" ;;
  *) echo "usage: $0 up | down | clean | status | kill-app N | start-app N | restart-app N | kill-workers N |" \
       "kill-sender N | start-sender N |" \
       "kill-db N | stop-db N | start-db N | wipe-db N | partition-db N | heal-db N | front PORT APPS" >&2; exit 2 ;;
esac
