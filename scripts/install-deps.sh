#!/usr/bin/env bash
# Installs every Debian package svc needs to build, run and test.
# Idempotent: does nothing when all packages are already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  # compiler cache: `make run` after `make test` (two build dirs) reuses the
  # objects instead of compiling everything again (Makefile, CCACHE_*)
  ccache
  libfcgi-dev rapidjson-dev libsodium-dev libmysqlcppconn-dev
  libcurl4-openssl-dev libpoco-dev libboost-test-dev libssl-dev
  nginx mariadb-server mariadb-client
  # the deploy-file tests make a self-signed certificate for `nginx -t`
  openssl
  python3-aiosmtpd php-cli curl wrk
  # make format-check; make fuzz (clang only recommends libclang-rt-dev,
  # which holds libFuzzer and clang's sanitizer runtimes)
  clang-format clang libclang-rt-dev
  # make deb: CPack's shlibdeps (dpkg-dev) and the package check
  dpkg-dev lintian
  # the manual pages, made by the build: help2man (svc-fcgi(8), svc-sender(8)
  # from --help), pandoc (svc.conf(5) from docs/configuration.md), groff/man-db
  # (their test renders them); bash-completion: the svc-admin completion's test
  help2man pandoc groff-base man-db bash-completion
  # clients: OpenAPI reply validation, the PHP client's tests, the reset page
  # in headless Chromium (driven by puppeteer-core from package-lock.json)
  python3-jsonschema python3-yaml phpunit php-curl chromium fonts-dejavu-core
  # DKIM signing (messaging/dkim.cpp) and its independent verifier in the tests
  libopendkim-dev python3-dkim python3-nacl
  # the token interop test: PyJWT's PyJWKClient verifies access tokens through
  # the JWKS URL as a Python backend would (ES256/EdDSA need python3-cryptography,
  # only recommended by python3-jwt; the test signs its own keys with it too)
  python3-jwt python3-cryptography
  # the OpenID Connect provider's independent relying party (issue 39):
  # authlib's OAuth 2.0 client runs over requests and verifies the ID tokens
  python3-authlib python3-requests
  # the second factor's tests: an independent RFC 6238 generator for every code
  oathtool
  # the TOTP setup reply's QR code (core/qr_svg.cpp), and zbarimg, the
  # independent decoder its unit test and the enrolment page test read it with
  libqrencode-dev zbar-tools
  # passkeys: CBOR of WebAuthn attestation objects and COSE keys (crypto/cbor_item.cpp)
  libcbor-dev
  # the optional per-site password strength minimum (crypto/password_score.cpp)
  libzxcvbn-dev
  # promtool: checks GET /metrics output and ops/prometheus/svc-alerts.yml
  prometheus
  # make bench only: the other packaged Argon2id implementations that
  # bench/argon2_impls.cpp compares with libsodium (docs/decisions.md)
  libargon2-dev libbotan-2-dev
  # make bench only: the mixed-traffic arm's PHP-FPM peer (bench/php-peer/),
  # run by scripts/bench.sh in its own directory, never as the system service
  php-fpm php-mysql
  # scripts/cluster.sh (make test-cluster): Galera, SST by mariabackup (which
  # streams through socat), network namespaces and bridges (iproute2)
  galera-4 mariadb-backup socat rsync iproute2
  # the OpenID Connect provider's relying-party test: Apache with
  # mod_auth_openidc protecting PHP pages, run on loopback ports in its own
  # directory, never as the system service
  apache2 libapache2-mod-auth-openidc libapache2-mod-php
)

# The web push test decrypts with node's built-in crypto (no npm packages).
# Any node will do; Debian's is installed only when none is on PATH.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
# npm ci of the repo-root package-lock.json (scripts/install-npm.sh).
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  "$(dirname "$0")/install-npm.sh"
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian packages start their daemons; svc runs its own instances.
for svc in nginx mariadb prometheus php8.2-fpm apache2; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$svc" 2>/dev/null; then
    "${sudo_cmd[@]}" systemctl stop "$svc" || true
  fi
done
"$(dirname "$0")/install-npm.sh"
