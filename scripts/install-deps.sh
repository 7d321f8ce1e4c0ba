#!/usr/bin/env bash
# Installs every Debian package svc needs to build, run and test.
# Idempotent: does nothing when all packages are already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libfcgi-dev rapidjson-dev libsodium-dev libmysqlcppconn-dev
  libcurl4-openssl-dev libpoco-dev libboost-test-dev libssl-dev
  nginx mariadb-server mariadb-client
  python3-aiosmtpd php-cli curl wrk
  # make format-check; make fuzz (clang only recommends libclang-rt-dev,
  # which holds libFuzzer and clang's sanitizer runtimes)
  clang-format clang libclang-rt-dev
  # promtool: checks GET /metrics output and ops/prometheus/svc-alerts.yml
  prometheus
)

# The web push test decrypts with node's built-in crypto (no npm packages).
# Any node will do; Debian's is installed only when none is on PATH.
command -v node >/dev/null 2>&1 || packages+=(nodejs)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian packages start their daemons; svc runs its own instances.
for svc in nginx mariadb prometheus; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    "${sudo_cmd[@]}" systemctl stop "$svc" || true
  fi
done
