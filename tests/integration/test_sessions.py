"""Server-side sessions through nginx (docs/api.md "Sessions", docs/decisions.md
"Sessions"): every sign-in opens one, refresh tokens rotate, an old token
played back after the grace revokes the whole session, sign-out ends one,
the others or all, a user lists and ends their own, a password reset ends
every one, and `svc-admin sessions` lists and revokes them.

The grace ([tokens] refresh_reuse_seconds) is passed by moving the session's
rotated_at back in the database, never by sleeping.
"""

import json
import threading

import svc_stack
from svc_stack import ApiTest, admin, post, sql, sql_value, unique_email
from test_auth_tokens import REFRESH_TTL, mint, parts, refresh, refresh_claims
from test_password_reset import fresh_token, reset
from test_mfa import settle, step_now, totp
from test_account_security import plant_passkey
from test_passkeys import ORIGIN, create_site

PASSWORD = "Session@Test1"
REVOKED = {"status": "Failed", "message": "Refresh token has been revoked"}
NOT_FOUND = {"status": "Failed", "message": "Session not found"}
UNAUTHORIZED = {"status": "Failed", "message": "Unauthorized"}


def new_user(prefix="sessions"):
    email = unique_email(prefix)
    reply = post("/auth/sign-up", {"email": email, "password": PASSWORD, "firstname": "Ses", "lastname": "Sion"})
    assert reply.status == 200, reply
    return email, reply.json["token"]


def login(email, user_agent="session-test", site=1):
    reply = svc_stack.request("POST", "/auth/login", {"email": email, "password": PASSWORD, "appID": site},
                              headers={"User-Agent": user_agent})
    assert reply.status == 200, reply
    return reply.json["token"]


def login_with_code(email, secret):
    """A password and TOTP sign-in: the token of the second step."""
    first = post("/auth/login", {"email": email, "password": PASSWORD, "appID": 1})
    assert first.status == 401 and "mfa_token" in first.json, first
    reply = post("/auth/mfa/verify", {"mfa_token": first.json["mfa_token"], "code": totp(secret, step_now())})
    assert reply.status == 200, reply
    return reply.json["token"]


def sid_of(token):
    return parts(token["refresh_token"])[1]["sid"]


def bearer(token):
    return {"Authorization": "Bearer " + token["access_token"]}


def session_row(sid):
    rows = sql("SELECT generation, revoked_at IS NOT NULL, revoked_reason FROM svc_sessions WHERE id = '%s'" % sid)
    return None if not rows else (int(rows[0][0]), rows[0][1] == "1", rows[0][2])


def past_the_grace(sid):
    sql("UPDATE svc_sessions SET rotated_at = rotated_at - 3600 WHERE id = '%s'" % sid)


class Rotation(ApiTest):

    def test_every_sign_in_opens_a_session_named_in_both_tokens(self):
        _, token = new_user()
        sid = sid_of(token)
        self.assertRegex(sid, r"^[A-Za-z0-9_-]{22}$")
        self.assertEqual(parts(token["access_token"])[1]["sid"], sid)
        self.assertEqual(parts(token["refresh_token"])[1]["gen"], 1)
        self.assertEqual(session_row(sid), (1, False, ""))

    def test_a_refresh_rotates_and_keeps_the_session(self):
        _, token = new_user()
        sid = sid_of(token)
        first = refresh(token["refresh_token"])
        pair = self.assertTokenReply(first, token_keys=("access_token", "refresh_token"))
        claims = parts(pair["refresh_token"])[1]
        self.assertEqual((claims["sid"], claims["gen"]), (sid, 2))
        self.assertEqual(parts(pair["access_token"])[1]["sid"], sid)
        self.assertEqual(session_row(sid), (2, False, ""))
        # The new token rotates on; the session is the same one.
        again = self.assertTokenReply(refresh(pair["refresh_token"]), token_keys=("access_token", "refresh_token"))
        self.assertEqual(parts(again["refresh_token"])[1]["gen"], 3)
        self.assertEqual(session_row(sid), (3, False, ""))

    def test_the_previous_token_within_the_grace_gets_a_pair_and_moves_nothing(self):
        _, token = new_user()
        sid = sid_of(token)
        newer = refresh(token["refresh_token"]).json["token"]
        late_tab = refresh(token["refresh_token"])  # the second tab, at once
        pair = self.assertTokenReply(late_tab, token_keys=("access_token", "refresh_token"))
        self.assertEqual(parts(pair["refresh_token"])[1]["gen"], 2)
        self.assertEqual(session_row(sid), (2, False, ""))
        self.assertEqual(refresh(newer["refresh_token"]).status, 200)

    def test_a_reuse_after_the_grace_revokes_the_whole_session(self):
        _, token = new_user()
        sid = sid_of(token)
        newest = refresh(token["refresh_token"]).json["token"]
        past_the_grace(sid)
        self.assertExact(refresh(token["refresh_token"]), 401, REVOKED)
        self.assertEqual(session_row(sid), (2, True, "reuse"))
        # The thief's or the owner's newest token: both dead now.
        self.assertExact(refresh(newest["refresh_token"]), 401, REVOKED)
        # An audit row names the session, never the token.
        detail = sql_value("SELECT detail FROM svc_audit_log WHERE event = 'refresh_reuse' AND detail = 'session %s'"
                           % sid)
        self.assertEqual(detail, "session " + sid)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE detail LIKE '%%%s%%'"
                                   % token["refresh_token"][-20:]), "0")
        # An access token of the session no longer manages the account.
        self.assertExact(post("/auth/sessions", headers=bearer(newest)), 401, UNAUTHORIZED)

    def test_an_older_token_two_rotations_back_is_a_reuse_even_within_the_grace(self):
        _, token = new_user()
        sid = sid_of(token)
        second = refresh(token["refresh_token"]).json["token"]
        refresh(second["refresh_token"])
        self.assertExact(refresh(token["refresh_token"]), 401, REVOKED)
        self.assertEqual(session_row(sid)[1:], (True, "reuse"))

    def test_two_concurrent_refreshes_both_succeed_and_rotate_once(self):
        _, token = new_user()
        sid = sid_of(token)
        replies = []
        lock = threading.Lock()

        def one(_):
            r = refresh(token["refresh_token"])
            with lock:
                replies.append(r)

        svc_stack.run_concurrently(one, range(4))
        self.assertEqual([r.status for r in replies], [200] * 4, replies)
        self.assertEqual({parts(r.json["token"]["refresh_token"])[1]["gen"] for r in replies}, {2})
        self.assertEqual(session_row(sid), (2, False, ""))

    def test_a_token_from_before_sessions_opens_one_session_once(self):
        email, token = new_user()
        uid = int(parts(token["refresh_token"])[1]["sub"])
        legacy = mint(refresh_claims(uid))  # no sid, as issued before sessions
        adopted = self.assertTokenReply(refresh(legacy), token_keys=("access_token", "refresh_token"))
        sid = sid_of(adopted)
        self.assertEqual(session_row(sid), (1, False, ""))
        self.assertEqual(refresh(adopted["refresh_token"]).status, 200)
        # Played back: the session it opened ends.
        self.assertExact(refresh(legacy), 401, REVOKED)
        self.assertEqual(session_row(sid)[1:], (True, "reuse"))

    def test_bad_session_claims_are_client_errors(self):
        _, token = new_user()
        claims = parts(token["refresh_token"])[1]
        cases = {
            "malformed sid": dict(claims, sid="not a session id"),
            "generation 0": dict(claims, gen=0),
            "generation from the future": dict(claims, gen=99),
            "another user's session": dict(claims, sub=str(int(claims["sub"]) + 1)),
        }
        for label, payload in cases.items():
            with self.subTest(label):
                reply = refresh(mint(payload))
                self.assertIn(reply.status, (400, 401), reply)
                self.assertNotEqual(reply.status, 500)
        unknown = dict(claims, sid="A" * 22)
        self.assertExact(refresh(mint(unknown)), 401, REVOKED)
        # None of that harmed the real session.
        self.assertEqual(refresh(token["refresh_token"]).status, 200)


class SignOut(ApiTest):

    def three_sessions(self):
        email, first = new_user("signout")
        return email, [first, login(email), login(email)]

    def test_the_body_refresh_token_ends_its_session_only(self):
        _, (a, b, c) = self.three_sessions()
        self.assertExact(post("/auth/sign-out", {"refreshToken": a["refresh_token"]}), 200,
                         {"status": "Success", "message": "Signed out successfully"})
        self.assertExact(refresh(a["refresh_token"]), 401, REVOKED)
        self.assertEqual(session_row(sid_of(a))[1:], (True, "sign_out"))
        self.assertEqual(refresh(b["refresh_token"]).status, 200)
        self.assertEqual(refresh(c["refresh_token"]).status, 200)

    def test_a_bearer_token_ends_its_session(self):
        _, (a, b, _) = self.three_sessions()
        self.assertEqual(post("/auth/sign-out", headers=bearer(b)).status, 200)
        self.assertExact(refresh(b["refresh_token"]), 401, REVOKED)
        self.assertEqual(refresh(a["refresh_token"]).status, 200)

    def test_scope_others_keeps_this_session_only(self):
        _, (a, b, c) = self.three_sessions()
        self.assertEqual(post("/auth/sign-out", {"scope": "others"}, headers=bearer(b)).status, 200)
        self.assertEqual(refresh(b["refresh_token"]).status, 200)
        self.assertExact(refresh(a["refresh_token"]), 401, REVOKED)
        self.assertExact(refresh(c["refresh_token"]), 401, REVOKED)

    def test_scope_global_ends_every_session(self):
        _, sessions = self.three_sessions()
        reply = post("/auth/sign-out", {"refreshToken": sessions[2]["refresh_token"], "scope": "global"})
        self.assertEqual(reply.status, 200)
        for token in sessions:
            self.assertExact(refresh(token["refresh_token"]), 401, REVOKED)

    def test_another_users_token_ends_nothing_of_mine(self):
        _, mine = new_user("signout")
        _, theirs = new_user("signout")
        post("/auth/sign-out", {"refreshToken": theirs["refresh_token"], "scope": "global"})
        self.assertEqual(refresh(mine["refresh_token"]).status, 200)


class ListAndRevoke(ApiTest):

    def test_list_marks_the_current_session(self):
        email, first = new_user("list")
        second = login(email, user_agent="second-device/1.0")
        reply = post("/auth/sessions", headers=bearer(first))
        self.assertReply(reply, 200)
        sessions = {s["id"]: s for s in reply.json["sessions"]}
        self.assertEqual(set(sessions), {sid_of(first), sid_of(second)})
        self.assertTrue(sessions[sid_of(first)]["current"])
        self.assertFalse(sessions[sid_of(second)]["current"])
        self.assertEqual(sessions[sid_of(second)]["user_agent"], "second-device/1.0")
        self.assertEqual(sessions[sid_of(second)]["amr"], ["pwd"])
        self.assertEqual(sessions[sid_of(second)]["ip"], "127.0.0.1")

    def test_revoke_one_then_it_is_gone(self):
        email, first = new_user("revoke")
        second = login(email)
        reply = post("/auth/sessions/revoke", {"id": sid_of(second)}, headers=bearer(first))
        self.assertExact(reply, 200, {"status": "Success", "message": "Session revoked"})
        self.assertExact(refresh(second["refresh_token"]), 401, REVOKED)
        listed = post("/auth/sessions", headers=bearer(first)).json["sessions"]
        self.assertEqual([s["id"] for s in listed], [sid_of(first)])
        # Again: it is no open session any more.
        self.assertExact(post("/auth/sessions/revoke", {"id": sid_of(second)}, headers=bearer(first)), 404, NOT_FOUND)

    def test_another_users_or_unknown_or_malformed_id_is_404(self):
        _, mine = new_user("revoke")
        _, theirs = new_user("revoke")
        for label, sid in (("another user's", sid_of(theirs)), ("unknown", "B" * 22), ("malformed", "x'; --")):
            with self.subTest(label):
                reply = post("/auth/sessions/revoke", {"id": sid}, headers=bearer(mine))
                self.assertExact(reply, 404, NOT_FOUND)
        self.assertEqual(refresh(theirs["refresh_token"]).status, 200)

    def test_bad_requests(self):
        _, mine = new_user("revoke")
        self.assertOnlyFields(post("/auth/sessions/revoke", {}, headers=bearer(mine)), "id")
        self.assertExact(post("/auth/sessions/revoke", {"id": "B" * 22}), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/sessions"), 401, UNAUTHORIZED)
        self.assertExact(post("/auth/sessions", headers={"Authorization": "Bearer garbage"}), 401, UNAUTHORIZED)


class SecurityEvents(ApiTest):

    def test_a_password_reset_ends_every_session(self):
        email, first = new_user("reset")
        second = login(email)
        token, _ = fresh_token(email)
        self.assertEqual(reset(token, password="Brand@New2").status, 200)
        for t in (first, second):
            reply = refresh(t["refresh_token"])
            self.assertEqual(reply.status, 401, reply)
            self.assertIn(reply.json["message"], ("Refresh token has been revoked", "Refresh token is no longer valid"))
            self.assertEqual(session_row(sid_of(t))[1:], (True, "password_reset"))

    def verified_sessions(self, prefix):
        """A user with a proven address (enrolment needs one) and two password sessions."""
        email = unique_email(prefix)
        admin("user", "create", "--email", email, "--verified", stdin=PASSWORD + "\n")
        return email, login(email), login(email, user_agent="other-device/1.0")

    def test_turning_a_factor_on_and_off_ends_the_other_sessions(self):
        email, mine, other = self.verified_sessions("factor")
        account = {"Authorization": "Bearer " + mine["account_token"]}
        settle()
        secret = post("/auth/mfa/totp/setup", headers=account).json["secret"]
        reply = post("/auth/mfa/totp/confirm", {"code": totp(secret, step_now() - 1)}, headers=account)
        self.assertEqual(reply.status, 200, reply)
        # The other session signed in without the factor: it ends; this one stays.
        self.assertExact(refresh(other["refresh_token"]), 401, REVOKED)
        self.assertEqual(session_row(sid_of(other))[1:], (True, "mfa_enabled"))
        self.assertEqual(refresh(mine["refresh_token"]).status, 200)
        # A session signed in with the factor ends when it is turned off again.
        third = sid_of(login_with_code(email, secret))
        self.assertEqual(post("/auth/mfa/disable", {"password": PASSWORD}, headers=account).status, 200)
        self.assertEqual(session_row(third)[1:], (True, "mfa_disabled"))
        self.assertEqual(session_row(sid_of(mine))[1], False)

    def test_removing_a_passkey_ends_the_other_sessions(self):
        site = create_site("Sessions passkeys")
        admin("site", "set", "--site", str(site), "--rp-id", "localhost", "--origins", ORIGIN)
        email = unique_email("passkey")
        uid = int(admin("user", "create", "--email", email, "--verified", stdin=PASSWORD + "\n")
                  .stdout.strip().splitlines()[-1])
        mine = login(email, site=site)
        other = login(email, site=site, user_agent="other-device/1.0")
        passkey = plant_passkey(site, uid, int(sql_value("SELECT UNIX_TIMESTAMP()")))
        reply = post("/auth/passkey/delete", {"id": passkey},
                     headers={"Authorization": "Bearer " + mine["account_token"]})
        self.assertEqual(reply.status, 200, reply)
        self.assertExact(refresh(other["refresh_token"]), 401, REVOKED)
        self.assertEqual(session_row(sid_of(other))[1:], (True, "passkey_removed"))
        self.assertEqual(refresh(mine["refresh_token"]).status, 200)

    def test_svc_admin_lists_and_revokes(self):
        email, first = new_user("admin")
        second = login(email, user_agent="admin-listed/2.0")
        listing = admin("sessions", "list", "--email", email).stdout
        self.assertIn(sid_of(first), listing)
        self.assertIn(sid_of(second), listing)
        self.assertIn("admin-listed/2.0", listing)
        out = admin("sessions", "revoke", "--id", sid_of(second)).stdout
        self.assertEqual(out.strip(), "session revoked")
        self.assertExact(refresh(second["refresh_token"]), 401, REVOKED)
        self.assertEqual(refresh(first["refresh_token"]).status, 200)
        out = admin("sessions", "revoke", "--email", email).stdout
        self.assertEqual(out.strip(), "1 session(s) revoked")
        self.assertExact(refresh(first["refresh_token"]), 401, REVOKED)
        self.assertEqual(admin("sessions", "list", "--email", email).stdout.strip(), "no open sessions")
        bad = admin("sessions", "revoke", check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM svc_audit_log WHERE event = 'sessions_revoked'"
                                   " AND user_id = %s" % parts(first["refresh_token"])[1]["sub"]), "2")


if __name__ == "__main__":
    svc_stack.main()
