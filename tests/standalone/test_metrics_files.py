#!/usr/bin/env python3
"""The example alert rules of docs/operations.md load in Prometheus:
`promtool check rules` accepts ops/prometheus/svc-alerts.yml, and every
alert the docs promise is in it.

Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import os
import shutil
import subprocess
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
RULES = SOURCE_DIR / "ops" / "prometheus" / "svc-alerts.yml"


class AlertRulesTest(unittest.TestCase):

    def test_promtool_accepts_the_rules(self):
        self.assertTrue(shutil.which("promtool"), "promtool missing: scripts/install-deps.sh installs prometheus")
        result = subprocess.run(["promtool", "check", "rules", str(RULES)], capture_output=True, text=True,
                                timeout=60)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("SUCCESS", result.stdout)

    def test_the_documented_alerts_exist(self):
        text = RULES.read_text()
        for metric in ("svc_outbox_oldest_pending_age_seconds", "svc_sender_last_run_timestamp_seconds",
                       'svc_http_requests_total{status=~"5.."}', "svc_logins_throttled_total"):
            self.assertIn(metric, text)
        docs = (SOURCE_DIR / "docs" / "operations.md").read_text()
        self.assertIn("ops/prometheus/svc-alerts.yml", docs)


if __name__ == "__main__":
    runner.main()
