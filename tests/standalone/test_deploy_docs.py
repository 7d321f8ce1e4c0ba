#!/usr/bin/env python3
"""Checks docs/deploy.md: what it tells an operator to run must not undo what
svc promises elsewhere.

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import re
import unittest

import runner
from deploy_common import SOURCE_DIR

class DeployDocTest(unittest.TestCase):
    """What docs/deploy.md tells an operator to run must not undo what svc
    promises elsewhere."""

    def setUp(self):
        self.text = (SOURCE_DIR / "docs" / "deploy.md").read_text()

    def test_merge_account_is_never_granted_svc_users(self):
        # A raw-SQL site reads whatever the merge account reads, other sites' users included.
        grants = re.findall(r"GRANT[^;]*;", self.text)
        self.assertTrue(any("svc_merge" in g for g in grants), "no merge-account grant example found")
        for grant in grants:
            if "svc_merge" in grant:
                self.assertNotIn("svc_users", grant)
                self.assertNotIn("svc.*", grant)
        self.assertIn("What `allow_sql_merge` trusts", self.text)

    def test_fastcgi_socket_on_a_shared_host(self):
        section = self.text[self.text.index("### The FastCGI socket on a shared host"):]
        for words in ("REMOTE_ADDR", "site-id", "0660", "PHP-FPM", "group"):
            self.assertIn(words, section)


if __name__ == "__main__":
    runner.main()
