#!/usr/bin/env bash
# Installs the repo-root package-lock.json into node_modules/ with `npm ci`
# (the test-time tools: @redocly/cli, puppeteer-core, jose). Idempotent: does
# nothing when node_modules/ was installed from the same lock file. Nothing
# is downloaded besides the locked packages: no install scripts run, and
# puppeteer uses Debian's /usr/bin/chromium instead of a browser of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.svc-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "install-npm: npm ci from package-lock.json" >&2
PUPPETEER_SKIP_DOWNLOAD=1 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2
echo "$want" >"$stamp"
