#!/usr/bin/env python3
"""One service per capability (issue 49): the site-management services in
src/manage/ own their repositories, and neither the management API's
handlers (src/manage_api/) nor any svc-admin command (src/admin/) reaches
one of those repositories itself; both go through the service, so
validation, the change, the audit row and the webhook event happen in one
place.

- A handler of src/manage_api/ names no db::*Repo at all (the row types a
  service returns, such as db::User, are read there, never fetched).
- No file of src/admin/ names a repository a service owns (OWNED), and no
  file outside src/manage/ calls the writes a service owns (OWNED_CALLS).
- Every capability's service file exists (so a rename cannot empty this test).

Stdlib only. Env: SVC_SOURCE_DIR = repository root (default: two levels up).
"""

import os
import re
import unittest
from pathlib import Path

import runner

SOURCE_DIR = Path(os.environ.get("SVC_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SRC = SOURCE_DIR / "src"

# repository class -> the service that owns it
OWNED = {
    "SiteAdminRepo": "manage/admins.cpp",
    "AdminAuditRepo": "manage/audit.cpp",
}
# a call only the service makes -> the service (repositories shared with
# the API's own routes, such as UserRepo, have single writes owned)
OWNED_CALLS = {
    r"\.set_active\(": "manage/users.cpp",
}
REPO = re.compile(r"\bdb::([A-Z][A-Za-z]*Repo)\b")


def sources(folder):
    return sorted((SRC / folder).glob("*.[ch]pp"))


class ManageLayers(unittest.TestCase):
    def test_the_owning_services_exist_and_use_their_repositories(self):
        for repo, service in OWNED.items():
            text = (SRC / service).read_text()
            self.assertRegex(text, r"\bdb::%s\b" % repo, "%s no longer uses %s" % (service, repo))

    def test_handlers_reach_no_repository(self):
        files = sources("manage_api")
        self.assertTrue(files)
        for path in files:
            text = path.read_text()
            with self.subTest(path.name):
                self.assertEqual(REPO.findall(text), [], "a handler goes through src/manage/")

    def test_admin_commands_reach_no_owned_repository(self):
        for path in sources("admin"):
            text = path.read_text()
            with self.subTest(path.name):
                owned = sorted({r for r in REPO.findall(text) if r in OWNED})
                self.assertEqual(owned, [], "svc-admin goes through the service: %s"
                                 % {r: OWNED[r] for r in owned})

    def test_owned_writes_are_called_by_their_service_only(self):
        for pattern, service in OWNED_CALLS.items():
            callers = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.cpp")
                             if re.search(pattern, p.read_text()) and not str(p.relative_to(SRC)).startswith("db/"))
            self.assertEqual(callers, [service], pattern)


if __name__ == "__main__":
    runner.main()
