"""GET /auth/site?site=N (issue 36, item 15): the public, read-only name of
an active site, which the ready pages (/account/reset, /account/verify,
/account/not-me, /account/email-change and the account centre /account/)
show when their address names the site. Issue 48: also whether the site
offers passkeys (the account centre hides them otherwise) and the issuer
and audience of its access tokens, so a site's developer can verify tokens
without asking the operator; `svc-admin site show` prints the same issuer
and audience, and the OpenID Connect issuer beside them. Through nginx:
the demo site answers its id and name; an unknown or inactive site is the
same 404; a missing, empty, repeated, non-numeric, zero, signed or too long
`site` is a 400 Validation error naming the field; never a 500. Every reply
is checked against docs/openapi.yaml by svc_stack.request().
"""

import base64
import json
import re

from svc_stack import ApiTest, admin, post, request, unique_email
import runner

NOT_FOUND = {"status": "Failed", "message": "Site not found"}
ISSUER = "https://svc.localhost"  # the stack's [tokens] issuer (scripts/stack.sh)


def jwt_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def validation(message):
    return {"status": "Failed", "message": "Validation error", "errors": [{"field": "site", "message": message}]}


def create_site(name, *extra):
    out = admin("site", "create", "--user-pool", "default", "--name", name, "--domain", "site-info.example",
                "--email-from", "Site info <no-reply@site-info.example>", *extra).stdout
    return int(next(line for line in out.splitlines() if re.fullmatch(r"\d+", line.strip())))


def show_value(site, key):
    """The value of `key:` in `svc-admin site show --site SITE`."""
    out = admin("site", "show", "--site", str(site)).stdout
    return re.search(r"(?m)^%s:\s+(.*)$" % re.escape(key), out).group(1)


class SiteInfoTest(ApiTest):
    def test_active_site_answers_its_name(self):
        self.assertExact(request("GET", "/auth/site?site=1"), 200,
                         {"status": "Success", "site": {"id": 1, "name": "Demo", "passkeys": False,
                                                        "access_tokens": {"issuer": ISSUER,
                                                                          "audience": "https://localhost"}}})
        # A name with markup and non-ASCII comes back as JSON text, as stored.
        site = create_site("Café <b>&</b> \"Ü\"")
        self.assertExact(request("GET", "/auth/site?site=%d" % site), 200,
                         {"status": "Success", "site": {"id": site, "name": "Café <b>&</b> \"Ü\"", "passkeys": False,
                                                        "access_tokens": {"issuer": ISSUER,
                                                                          "audience": "https://site-info.example"}}})

    def test_a_site_developer_reads_issuer_audience_and_passkeys(self):
        site = create_site("Site info tokens", "--audience", "https://api.site-info.example", "--rp-id", "localhost",
                           "--origins", "http://localhost")
        reply = request("GET", "/auth/site?site=%d" % site)
        self.assertExact(reply, 200, {"status": "Success", "site": {
            "id": site, "name": "Site info tokens", "passkeys": True,
            "access_tokens": {"issuer": ISSUER, "audience": "https://api.site-info.example"}}})
        # What a token of the site really carries, and what the operator sees.
        email = unique_email("site-info")
        signed_up = post("/auth/sign-up", {"email": email, "password": "Site@Info2026", "appID": site})
        claims = jwt_claims(self.assertTokenReply(signed_up)["access_token"])
        self.assertEqual((claims["iss"], claims["aud"]), (ISSUER, "https://api.site-info.example"))
        self.assertEqual(show_value(site, "token_issuer"), ISSUER + " (iss of its access tokens)")
        self.assertEqual(show_value(site, "audience"), "https://api.site-info.example")
        self.assertRegex(show_value(site, "oidc_issuer"), r"^http://localhost:\d+/oidc/%d \(iss of its ID tokens\)$"
                         % site)

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
