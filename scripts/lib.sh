# Helpers shared by scripts/stack.sh and scripts/cluster.sh (sourced, not
# run). The caller sets, before sourcing:
#   lib_name   prefix of messages ("stack", "cluster")
#   run        directory of the pid files (NAME.pid)
#   py         the Python interpreter
#   dir        the state directory (named in error messages)
# and `repo`, the source tree (render_config reads scripts/svc.conf.in).

say() { printf '%s: %s\n' "$lib_name" "$*" >&2; }
die() { say "error: $*"; exit 1; }

free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
secret() { "$py" -c 'import secrets; print(secrets.token_urlsafe(18))'; }

# A process is running when it exists and is not a zombie waiting to be reaped.
running() { [ -r "/proc/$1/stat" ] && [ "$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2)" != "Z" ]; }
alive() { [ -f "$run/$1.pid" ] && running "$(cat "$run/$1.pid")"; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  while [ "$SECONDS" -lt "$end" ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  die "$what did not come up within ${secs}s (logs in $dir)"
}

start_bg() {  # start_bg NAME LOGFILE COMMAND...
  local pname=$1 log=$2; shift 2
  if alive "$pname"; then return; fi
  "$@" >>"$log" 2>&1 &
  echo $! >"$run/$pname.pid"
}

# SIGNAL, then up to SECONDS (default 15) for the process to end, then
# SIGKILL and up to 5 s more; removes the pid file.
stop_pid() {  # stop_pid NAME SIGNAL [SECONDS]
  local pname=$1 sig=${2:-TERM} secs=${3:-15} pid end
  [ -f "$run/$pname.pid" ] || return 0
  pid=$(cat "$run/$pname.pid")
  if running "$pid"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    end=$((SECONDS + secs))
    while running "$pid" && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
    running "$pid" && kill -KILL "$pid" 2>/dev/null || true
    end=$((SECONDS + 5))
    while running "$pid" && [ "$SECONDS" -lt "$end" ]; do sleep 0.05; done
  fi
  rm -f "$run/$pname.pid"
}

# The app configuration, from the one template scripts/svc.conf.in: every
# @NAME@ is replaced by the value of NAME=VALUE (values may span lines).
# A placeholder left without a value is an error, so the template and its
# two callers cannot drift apart silently.
render_config() {  # render_config OUT NAME=VALUE...
  local out=$1; shift
  "$py" - "$repo/scripts/svc.conf.in" "$out" "$@" <<'PY' || die "cannot render $out"
import re, sys
template, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
values = dict(p.split("=", 1) for p in pairs)
text = open(template).read()
text = "".join(l for l in text.splitlines(True) if not l.startswith("##"))  # the template's own comments
text = re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], text)
text = re.sub(r"\n{3,}", "\n\n", text)
with open(out, "w") as f:
    f.write(text)
PY
  chmod 600 "$out"
}
