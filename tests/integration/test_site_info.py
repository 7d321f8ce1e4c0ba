"""GET /auth/site?site=N (issue 36, item 15): the public, read-only name of
an active site, which the ready pages (/account/reset, /account/verify,
/account/not-me, /account/email-change and the account centre /account/)
show when their address names the site. Through nginx:
the demo site answers its id and name; an unknown or inactive site is the
same 404; a missing, empty, repeated, non-numeric, zero, signed or too long
`site` is a 400 Validation error naming the field; never a 500. Every reply
is checked against docs/openapi.yaml by svc_stack.request().
"""

import re

from svc_stack import ApiTest, admin, request
import runner

NOT_FOUND = {"status": "Failed", "message": "Site not found"}


def validation(message):
    return {"status": "Failed", "message": "Validation error", "errors": [{"field": "site", "message": message}]}


def create_site(name, *extra):
    out = admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "site-info.example",
                "--email-from", "Site info <no-reply@site-info.example>", *extra).stdout
    return int(next(line for line in out.splitlines() if re.fullmatch(r"\d+", line.strip())))


class SiteInfoTest(ApiTest):
    def test_active_site_answers_its_name(self):
        self.assertExact(request("GET", "/auth/site?site=1"), 200,
                         {"status": "Success", "site": {"id": 1, "name": "Demo"}})
        # A name with markup and non-ASCII comes back as JSON text, as stored.
        site = create_site("Café <b>&</b> \"Ü\"")
        self.assertExact(request("GET", "/auth/site?site=%d" % site), 200,
                         {"status": "Success", "site": {"id": site, "name": "Café <b>&</b> \"Ü\""}})

    def test_unknown_and_inactive_sites_are_not_found(self):
        self.assertExact(request("GET", "/auth/site?site=987654321"), 404, NOT_FOUND)
        site = create_site("Site info inactive")
        admin("site", "set", "--site", str(site), "--active", "false")
        self.assertExact(request("GET", "/auth/site?site=%d" % site), 404, NOT_FOUND)

    def test_bad_parameter_is_a_validation_error(self):
        self.assertExact(request("GET", "/auth/site"), 400, validation("site is required"))
        self.assertExact(request("GET", "/auth/site?other=1"), 400, validation("site is required"))
        self.assertExact(request("GET", "/auth/site?site="), 400, validation("site is required"))
        for value in ("abc", "0", "-1", "1.5", "1e3", "%31", "+1", "1%00", "9" * 19, "1 "):
            reply = request("GET", "/auth/site?site=" + value.replace(" ", "%20"))
            self.assertExact(reply, 400, validation("site must be a positive integer"))
        self.assertExact(request("GET", "/auth/site?site=1&site=2"), 400, validation("site must be given once"))

    def test_other_methods_are_refused(self):
        reply = request("POST", "/auth/site?site=1", body={})
        self.assertEqual(reply.status, 405, reply)
        self.assertEqual(reply.json, {"status": "Failed", "message": "Method not allowed"})


if __name__ == "__main__":
    runner.main()
