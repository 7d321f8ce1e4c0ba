"""POST /auth/getFolderLimits through nginx + workers + MariaDB.

Covers: the demo user's exact reply; the rows that count (svc_related with
master_table svc_users, master_id = userId, linked_table svc_folders, joined
with a folder of the requested site) in link-id order, and everything that
must not count (a folder of another site, a link of another master table or
linked table, a link to a folder that does not exist); an empty list; appID and
userId as decimal strings; a second auth table's user (svc_staff) with the
same id as a svc_users user sees only its own table's links; one validation
entry per missing or malformed field;
an unknown or inactive site; hostile table names (400 on table, nothing
touched); hostile strings and numbers where strings belong.

Sites, folders and links are made per test with SQL (new ids every run), so the
file is re-runnable and independent of other test files; the seeded folders
1..3 of site 1 and the demo user's links are only read.
"""

import hashlib
import secrets

import svc_stack
from svc_stack import ApiTest, post, q, sql, sql_value, unique_email

LEAK_WORDS = ("sql syntax", "sqlstate", "mariadb", "mysql", "exception", "what()", "errno")


def insert(statement):
    """Runs one INSERT and returns the new id (same session)."""
    return int(sql(statement + "; SELECT LAST_INSERT_ID()")[-1][0])


# x-site-key of each site made here (site 1's comes from the stack's env file).
KEYS = {}


def new_site(active=1):
    """A site with its own key, stored as svc-admin stores it (BLAKE2b-256 hex)."""
    key = secrets.token_urlsafe(32)
    site = insert("INSERT INTO svc_sites (name, domain, active, api_key_hash) VALUES (%s, 'folders.example', %d, %s)"
                  % (q(unique_email("folders-site")), active, q(hashlib.blake2b(key.encode(), digest_size=32).hexdigest())))
    KEYS[site] = key
    return site


def backend(app):
    """The credentials of a backend call of application `app`: its id and key."""
    try:
        site = int(app)
    except (TypeError, ValueError):
        return {"site-id": str(app)[:60].replace("\n", " ")}
    return {"site-id": str(app), "x-site-key": KEYS.get(site, svc_stack.SITE_KEY)}


def new_folder(site_id, name="f"):
    return insert("INSERT INTO svc_folders (site_id, name) VALUES (%d, %s)" % (site_id, q(name)))


def link(user_id, folder_id, master_table="svc_users", linked_table="svc_folders"):
    return insert("INSERT INTO svc_related (master_table, master_id, linked_table, linked) VALUES (%s, %d, %s, %d)"
                  % (q(master_table), user_id, q(linked_table), folder_id))


def new_user():
    return insert("INSERT INTO svc_users (user_email, password) VALUES (%s, NULL)" % q(unique_email("folders")))


def limits(app, user, table="svc_folders", headers=None):
    """getFolderLimits as application `app`'s backend (or with `headers`)."""
    return post("/auth/getFolderLimits", {"appID": app, "table": table, "userId": user},
                headers=backend(app) if headers is None else headers)


def counts():
    return sql("SELECT (SELECT COUNT(*) FROM svc_related), (SELECT COUNT(*) FROM svc_folders),"
               " (SELECT COUNT(*) FROM svc_users), (SELECT COUNT(*) FROM svc_sites)")[0]


class FolderTest(ApiTest):
    LEAK_WORDS = LEAK_WORDS

    def assertData(self, reply, ids):
        self.assertReply(reply, 200, {"status": "Success", "data": [{"linked": i} for i in ids]})
        for item in reply.json["data"]:
            self.assertIsInstance(item["linked"], int)

    def test_demo_user(self):
        reply = post("/auth/getFolderLimits", {"appID": 1, "table": "svc_folders", "userId": 1},
                     headers=svc_stack.site_headers(1))
        self.assertEqual(reply.status, 200, reply)
        self.assertEqual(reply.json, {"status": "Success", "data": [{"linked": 1}, {"linked": 2}]})
        self.assertTrue(reply.headers.get("content-type", "").startswith("application/json"))

    def test_only_links_of_this_user_site_and_tables_in_link_order(self):
        site = new_site()
        user = new_user()
        mine_b = new_folder(1, "b")
        mine_a = new_folder(1, "a")
        other = new_folder(site, "other-site")
        link(user, mine_a)                      # lower link id, higher folder id
        link(user, other)                       # a folder of another site
        link(user, mine_b)
        link(user, 1, master_table="svc_staff")  # another master table, same id
        link(user, 3, linked_table="svc_notification_log")  # a notification link, not a folder
        link(user, 2_000_000_000)               # a folder that does not exist
        link(user + 1_000_000, 3)               # another user
        self.assertData(limits(1, user), [mine_a, mine_b])
        self.assertData(limits(site, user), [other])
        # The demo user's links are unchanged by all this.
        self.assertData(limits(1, 1), [1, 2])

    def test_user_without_links(self):
        self.assertData(limits(1, new_user()), [])
        self.assertData(limits(1, 2_000_000_000), [])  # no such user: nothing linked either

    def test_numbers_as_decimal_strings(self):
        user = new_user()
        folder = new_folder(1)
        link(user, folder)
        self.assertData(limits("1", str(user)), [folder])
        self.assertData(limits(1, str(user)), [folder])
        self.assertData(limits("1", user), [folder])

    def test_credentials_are_required(self):
        """Without credentials any caller could list any user's folders (an
        IDOR): only the application's backend (site-id = appID with its key)
        or the user's own access token may."""
        other = new_site()
        unauthorized = {"status": "Failed", "message": "Unauthorized"}
        for label, headers in (("none", {}), ("site id only", {"site-id": "1"}),
                               ("wrong key", {"site-id": "1", "x-site-key": svc_stack.SITE_KEY + "x"}),
                               ("empty key", {"site-id": "1", "x-site-key": ""}),
                               ("another site's id and key", backend(other)),
                               ("key of site 1 under another id", {"site-id": str(other),
                                                                    "x-site-key": svc_stack.SITE_KEY}),
                               ("garbage bearer", {"Authorization": "Bearer x.y.z"})):
            with self.subTest(label):
                self.assertReply(limits(1, 1, headers=headers), 401, unauthorized)

    def test_own_access_token(self):
        login = post("/auth/login", {"email": "demo@example.com", "password": "Demo@2026!", "appID": 1})
        self.assertEqual(login.status, 200, login)
        tokens = login.json["token"]
        user = login.json["token"]["user"]["id"]
        bearer = {"Authorization": "Bearer " + tokens["access_token"]}
        self.assertData(limits(1, user, headers=bearer), [1, 2])
        self.assertData(limits(1, user, headers={"authorization": "bearer " + tokens["access_token"]}), [1, 2])
        unauthorized = {"status": "Failed", "message": "Unauthorized"}
        # Someone else's folders, a token issued for another application, a refresh token.
        self.assertReply(limits(1, user + 1, headers=bearer), 401, unauthorized)
        self.assertReply(limits(new_site(), user, headers=bearer), 401, unauthorized)
        self.assertReply(limits(1, user, headers={"Authorization": "Bearer " + tokens["refresh_token"]}), 401,
                         unauthorized)

    def test_a_staff_token_reads_the_staff_users_links_only(self):
        """Issue 22: ids overlap between auth tables. A user of the second
        table (svc_staff) whose id is also a svc_users id gets the links of
        its own table, never those of the svc_users user with that id."""
        email, password = unique_email("folders-staff"), "Staff@Folders1"
        staff = int(svc_stack.admin("user", "create", "--email", email, "--table", "svc_staff",
                                    stdin=password + "\n").stdout.strip().splitlines()[-1])
        if sql_value("SELECT COUNT(*) FROM svc_users WHERE id = %d" % staff) == "0":
            insert("INSERT INTO svc_users (id, user_email, password) VALUES (%d, %s, NULL)"
                   % (staff, q(unique_email("folders-twin"))))
        users_folder, staff_folder = new_folder(1, "of-the-svc_users-twin"), new_folder(1, "of-staff")
        link(staff, users_folder)
        link(staff, staff_folder, master_table="svc_staff")
        login = post("/auth/login", {"email": email, "password": password, "authTable": "svc_staff", "appID": 1})
        self.assertEqual(login.status, 200, login)
        bearer = {"Authorization": "Bearer " + login.json["token"]["access_token"]}
        self.assertData(limits(1, staff, headers=bearer), [staff_folder])
        # The backend call names no table: the default one's user, who never sees the staff link.
        backend_view = [d["linked"] for d in limits(1, staff).json["data"]]
        self.assertIn(users_folder, backend_view)
        self.assertNotIn(staff_folder, backend_view)

    def test_missing_fields(self):
        full = {"appID": 1, "table": "svc_folders", "userId": 1}
        self.assertOnlyFields(post("/auth/getFolderLimits", {}), "appID", "table", "userId")
        for name in full:
            body = {k: v for k, v in full.items() if k != name}
            with self.subTest(missing=name):
                self.assertOnlyFields(post("/auth/getFolderLimits", body), name)
            with self.subTest(null=name):
                self.assertOnlyFields(post("/auth/getFolderLimits", dict(full, **{name: None})), name)

    def test_malformed_ids(self):
        for bad in (0, -1, 1.5, "abc", "1 OR 1=1", "1; DROP TABLE svc_related", " 1", "0x10", True, [1], {"id": 1},
                    "", "99999999999999999999", 1e30, "-1"):
            with self.subTest(value=str(bad)[:30]):
                self.assertOnlyFields(limits(bad, 1), "appID")
                self.assertOnlyFields(limits(1, bad), "userId")

    def test_unknown_or_inactive_site(self):
        self.assertOnlyFields(limits(2_000_000_000, 1), "appID")
        inactive = new_site(active=0)
        user = new_user()
        link(user, new_folder(inactive))
        self.assertOnlyFields(limits(inactive, user), "appID")

    def test_hostile_tables(self):
        before = counts()
        for table in ("svc_users", "svc_folders; DROP TABLE svc_related", "`svc_folders`", "information_schema.tables",
                      "SVC_FOLDERS", "svc_folders ", " svc_folders", "svc_folders\x00", "svc_related", "svc_sites",
                      "svc_folders--", "svc_folders' OR '1'='1", "svc_folders f JOIN svc_users u",
                      "svc.svc_folders", "svc_folders\r\n", "", 5, True, ["svc_folders"], {"t": "svc_folders"},
                      "a" * 2000, "<script>alert(1)</script>"):
            with self.subTest(table=str(table)[:40]):
                self.assertOnlyFields(limits(1, 1, table), "table")
        self.assertEqual(counts(), before)
        self.assertEqual(sql_value("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'svc'"
                                   " AND table_name IN ('svc_related', 'svc_folders', 'svc_users')"), "3")

    def test_all_fields_bad_at_once(self):
        self.assertOnlyFields(post("/auth/getFolderLimits", {"appID": "x", "table": "svc_users", "userId": -5}),
                              "appID", "table", "userId")

    def test_non_object_bodies(self):
        for raw in (b"{not json", b"[]", b"null", b"\xff\xfe", b"1", b'"svc_folders"',
                    b'{"appID":1,"table":"svc_folders","userId":1'):
            with self.subTest(raw=raw):
                reply = post("/auth/getFolderLimits", raw=raw)
                self.assertEqual(reply.status, 400, reply)
                self.assertEqual(reply.json.get("message"), "Validation error", reply)


if __name__ == "__main__":
    svc_stack.main()
