"""Fixtures of the site management API's tests (issue 49): sites with pools
of their own, users of a site's pool, and site administrators signed in with
a second factor, each the way an operator and a person make them (svc-admin,
then the sign-in and TOTP routes through nginx).

An admin's second factor is TOTP, enrolled with oathtool's code (RFC 6238,
not our code) and then answered with one of its recovery codes, so no test
waits for the next 30-second step.
"""

import json
import subprocess
import time
import urllib.parse

from svc_stack import admin, post, request, sql, unique_email

PASSWORD = "Site@Admin-2026-ok"

FORBIDDEN = {"status": "Failed", "message": "Forbidden"}
SECOND_FACTOR = {"status": "Failed", "message": "Second factor required for site administration"}
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}
RECENT = {"status": "Failed", "message": "Recent sign-in required, log in again"}
NOT_FOUND = {"status": "Failed", "message": "User not found"}


def create_site(name="Managed"):
    """A new site with a user pool of its own; returns its id."""
    out = admin("site", "create", "--name", name, "--domain", "managed.example").stdout
    return int(out.strip().splitlines()[-1])


def create_user(site, prefix="member", verified=True):
    """A user of the site's pool (svc-admin user create); returns (email, id)."""
    email = unique_email(prefix)
    args = ["user", "create", "--email", email, "--site", str(site)] + (["--verified"] if verified else [])
    uid = int(admin(*args, stdin=PASSWORD + "\n").stdout.strip().splitlines()[-1])
    return email, uid


def login(email, site, password=PASSWORD):
    return post("/auth/login", {"email": email, "password": password, "appID": site})


def totp(secret):
    out = subprocess.run(["oathtool", "--totp", "-b", "--now", "@%d" % (int(time.time()) - 30), secret],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


class Admin:
    """A user of `site`'s pool with a role there and a token whose session
    has a second factor (token) or not (first_factor_token)."""

    def __init__(self, site, role, second_factor=True, grant=True, prefix="admin"):
        self.site = site
        self.email, self.id = create_user(site, prefix + "-" + (role or "none"))
        if grant:
            admin("site", "admin", "add", "--site", str(site), "--email", self.email, "--role", role)
        first = login(self.email, site)
        assert first.status == 200, first
        self.first_factor_token = first.json["token"]["account_token"]
        self.token = self.first_factor_token
        if second_factor:
            self.token = self.enrol_totp()

    def enrol_totp(self):
        headers = {"Authorization": "Bearer " + self.first_factor_token}
        setup = post("/auth/mfa/totp/setup", headers=headers)
        assert setup.status == 200, setup
        confirm = post("/auth/mfa/totp/confirm", {"code": totp(setup.json["secret"])}, headers=headers)
        assert confirm.status == 200, confirm
        self.recovery_codes = list(confirm.json["recovery_codes"])
        return self.sign_in_again()

    def sign_in_again(self):
        """A fresh sign-in with the password and a recovery code; returns its account token."""
        challenge = login(self.email, self.site)
        assert challenge.status == 401 and "mfa_token" in challenge.json, challenge
        verified = post("/auth/mfa/verify", {"mfa_token": challenge.json["mfa_token"],
                                             "recovery_code": self.recovery_codes.pop()})
        assert verified.status == 200, verified
        self.refresh_token = verified.json["token"]["refresh_token"]
        return verified.json["token"]["account_token"]

    def call(self, method, path, body=None, token=None, site=None, query=None):
        """`method` /admin/sites/{site}{path} with this admin's token."""
        url = "/admin/sites/%d%s" % (site or self.site, path)
        if query:
            url += "?" + urllib.parse.urlencode(query)
        headers = {"Authorization": "Bearer " + (token or self.token)}
        if body is None:
            return request(method, url, headers=headers)
        return request(method, url, raw=json.dumps(body), headers=headers)


def audit_rows(site, action):
    """The site's svc_admin_audit rows of `action`, oldest first, as (actor, target, detail)."""
    return [tuple(row) for row in sql("SELECT actor, target, detail FROM svc_admin_audit"
                                      " WHERE site_id = %d AND action = '%s' ORDER BY id" % (site, action))]


def forget_unheard_hooks():
    """Deletes every endpoint at the address nobody listens on (and its
    deliveries): left behind, its failures would fail the doctor's webhook
    check of a later test on the same stack."""
    sql("DELETE d FROM svc_webhook_deliveries d JOIN svc_webhook_endpoints e ON e.id = d.endpoint_id"
        " WHERE e.url = 'http://127.0.0.1:9/hook'")
    sql("DELETE FROM svc_webhook_endpoints WHERE url = 'http://127.0.0.1:9/hook'")
