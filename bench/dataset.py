"""The benchmark's data set: users, sites, templates, folders and legacy passwords loaded into the stack, the request
files of every arm (one request a line, bench/wrk/arm.lua's format, which bench/mix.py and bench/php_peer.py read
too), and the small data set of the tools' scratch stacks. Part of bench/bench.py; stdlib only.
"""

import base64
import hashlib
import json
import os
import random
import re
import subprocess
import time

from load import Client
from stack import log, run

PASSWORD = "Bench@2026!"
USERS = 100_000
USER_ID_BASE = 1000          # bench user n has id USER_ID_BASE + n
SITES = 10
TEMPLATES_PER_SITE = 5
FOLDERS_PER_SITE = 100
FOLDER_ID_BASE = 100_000
FOLDER_LINKS = 10_000
LINKS_PER_USER = 5
LEGACY_USERS = 20_000        # PHP openssl_encrypt (AES) passwords; enough that no one hits the login throttle
LEGACY_ID_BASE = 300_000


# The x-site-key of the bench's own sites 2..SITES (site 1 is the stack's demo
# site, whose key is SITE_KEY in the stack's env file).
BENCH_SITE_KEY = "bench-site-key-not-a-secret"


def site_headers(stack, site):
    """The headers of a backend call of `site` (its id and key)."""
    return {"site-id": str(site), "x-site-key": stack.site_key if site == 1 else BENCH_SITE_KEY}


def request_line(body, headers=None):
    """One line of a request file (bench/wrk/arm.lua): "name: value|name: value<TAB>JSON body"."""
    return "|".join(f"{k}: {v}" for k, v in (headers or {}).items()) + "\t" + json.dumps(body)


def parse_line(line):
    """(headers dict, body text) of a request file line; the headers part is optional."""
    head, _, body = line.partition("\t") if "\t" in line else ("", "", line)
    return {k.strip(): v.strip() for k, _, v in (p.partition(":") for p in head.split("|") if ":" in p)}, body


def refresh_body(token):
    """The /auth/refresh-token request of a login's or sign-up's token pair."""
    return {"payload": {"access_token": token["access_token"], "refresh_token": token["refresh_token"]}}


def legacy_aes(stack):
    """PASSWORD as the PHP service stored it: base64(iv . openssl_encrypt(pw, 'aes-256-cbc', key, RAW, iv)),
    the key NUL-padded to 32 bytes as PHP does."""
    key = re.search(r"^legacy_password_key\s*=\s*(.*)$", stack.config.read_text(), re.M).group(1).strip()
    iv = os.urandom(16)
    ct = subprocess.run(["openssl", "enc", "-aes-256-cbc", "-K", key.encode()[:32].ljust(32, b"\0").hex(),
                         "-iv", iv.hex()], input=PASSWORD.encode(), capture_output=True, check=True).stdout
    return base64.b64encode(iv + ct).decode()


def load_data(stack, out):
    """Loads the data set; returns (request files {arm: path}, the users' password hash, the prototype
    outbox row the sender arms copy, the row counts)."""
    log("loading the data set")
    password_hash = stack.admin("hash-password", stdin=PASSWORD + "\n")
    assert password_hash.startswith("$argon2id$"), password_hash
    t0 = time.monotonic()
    load_rows(stack, password_hash)
    counts = stack.sql("SELECT (SELECT COUNT(*) FROM svc_users), (SELECT COUNT(*) FROM svc_related), "
                       "(SELECT COUNT(*) FROM svc_notifications), (SELECT COUNT(*) FROM svc_sites);").split()
    log(f"data set loaded in {time.monotonic() - t0:.1f}s: users={counts[0]} links={counts[1]} "
        f"templates={counts[2]} sites={counts[3]}")
    files = write_request_files(stack, out, random.Random(7))
    # One real notification: the prototype row the sender arms copy.
    status, reply = Client(stack.url("")).post("/message/notification", {
        "event": "bench-1", "email": "proto@example.com", "data": {"name": "Ada <Lovelace>", "order": "4242"}},
        headers=site_headers(stack, 1))
    assert status == 200 and reply["status"] == "Success", (status, reply)
    proto = int(stack.sql("SELECT MAX(id) FROM svc_notification_log WHERE recipient = 'proto@example.com';").strip())
    return files, password_hash, proto, counts


def load_rows(stack, password_hash):
    stack.sql(f"""
INSERT INTO svc_sites (id, name, domain, reset_url, allowed_redirect_hosts, email_from, vapid_subject, api_key_hash)
  SELECT seq, CONCAT('Bench site ', seq), CONCAT('site', seq, '.example'), 'http://127.0.0.1/reset',
         'localhost,127.0.0.1', CONCAT('Bench ', seq, ' <no-reply@site', seq, '.example>'), 'mailto:admin@demo.example',
         '{hashlib.blake2b(BENCH_SITE_KEY.encode(), digest_size=32).hexdigest()}'
  FROM seq_2_to_{SITES};
INSERT INTO svc_notifications (site_id, event, enabled, subject, content)
  SELECT s.seq, CONCAT('bench-', e.seq), 1, CONCAT('Order [order] for [name] (', e.seq, ')'),
         CONCAT('<html><body><p>Hello [name],</p><p>your order <b>[order]</b> has shipped.</p>',
                '<p>Track it at <a href="https://shop.example/track/[order]">shop.example</a>.</p>',
                '<p>Template ', e.seq, ' of site ', s.seq, '.</p></body></html>')
  FROM seq_1_to_{SITES} s, seq_1_to_{TEMPLATES_PER_SITE} e;
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role, mobile)
  SELECT {USER_ID_BASE} + seq, CONCAT('bench', seq, '@example.com'), '{password_hash}', 'Bench',
         CONCAT('User', seq), IF(seq % 10 = 0, 'admin', 'user'), CONCAT('+1555', LPAD(seq, 7, '0'))
  FROM seq_1_to_{USERS};
INSERT INTO svc_folders (id, site_id, name)
  SELECT {FOLDER_ID_BASE} + seq, ((seq - 1) DIV {FOLDERS_PER_SITE}) + 1, CONCAT('Folder ', seq)
  FROM seq_1_to_{SITES * FOLDERS_PER_SITE};
INSERT INTO svc_related (master_table, master_id, linked_table, linked)
  SELECT 'svc_users', {USER_ID_BASE} + ((seq - 1) DIV {LINKS_PER_USER}) + 1, 'svc_folders',
         {FOLDER_ID_BASE} + ((((seq - 1) DIV {LINKS_PER_USER}) + 1) % {SITES}) * {FOLDERS_PER_SITE}
           + ((seq - 1) % {LINKS_PER_USER}) * 7 + 1
  FROM seq_1_to_{FOLDER_LINKS};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role)
  SELECT {LEGACY_ID_BASE} + seq, CONCAT('legacy', seq, '@example.com'), '{legacy_aes(stack)}', 'Legacy', 'User', 'user'
  FROM seq_1_to_{LEGACY_USERS};
ANALYZE TABLE svc_users, svc_related, svc_folders, svc_notifications;
""")


def write_request_files(stack, out, rnd):
    """The request file of every arm in `out`: {arm: path}."""
    def bench_user():
        return f"bench{rnd.randint(1, USERS)}@example.com"

    unknown = "nobody-{uniq}@example.com"  # arm.lua makes {uniq} unique within a run
    bodies = {
        # random known users (one shared hash, so every verify costs the same)
        "login": [{"email": bench_user(), "password": PASSWORD, "appID": 1} for _ in range(2000)],
        "login-unknown": [{"email": unknown, "password": PASSWORD, "appID": 1}],
        # the same wrong password for random legacy-AES users (each verify is microseconds without the dummy)
        "login-legacy-wrong": [{"email": f"legacy{rnd.randint(1, LEGACY_USERS)}@example.com",
                                "password": "Wrong@2026!", "appID": 1} for _ in range(2000)],
        # registered users (mailed) and unknown addresses (not), same site
        "request-pass": [{"email": bench_user(), "appID": 2} for _ in range(2000)],
        "request-pass-unknown": [{"email": unknown, "appID": 2}],
        # registered users (a code mailed, or the resend rule) and unknown addresses, same site
        "email-code": [{"email": bench_user(), "appID": 2} for _ in range(2000)],
        "email-code-unknown": [{"email": unknown, "appID": 2}],
        "sign-up": [{"email": "new-{uniq}@example.com", "password": "Analytical@1", "firstname": "Ada",
                     "lastname": "Lovelace", "appID": 1}],
        # (refresh-token: no file here; its tokens rotate, so each run mints its own: pools.py)
        # encrypted ids of 64 random users
        "user-email": [{"userId": stack.admin("mint-user-id", "--user", str(USER_ID_BASE + rnd.randint(1, USERS)),
                                              "--ttl", "2h")} for _ in range(64)],
    }
    lines = {name: [request_line(b) for b in bs] for name, bs in bodies.items()}
    lines.update(site_request_lines(stack, rnd))
    lines.update(preview_request_lines(stack, rnd))
    files = {}
    for name, ls in lines.items():
        files[name] = str(out / f"{name}.txt")
        (out / f"{name}.txt").write_text("\n".join(ls) + "\n")
    return files


def site_request_lines(stack, rnd):
    """The request lines of the arms a site's backend calls, with its id and key."""
    folders, notes = [], []
    for _ in range(1000):  # users with folder links, in the site their folders belong to
        u = rnd.randint(1, FOLDER_LINKS // LINKS_PER_USER)
        app = (u % SITES) + 1
        folders.append(request_line({"appID": app, "table": "svc_folders", "userId": USER_ID_BASE + u},
                                    site_headers(stack, app)))
    for _ in range(1000):  # 10 sites x 5 templates
        site = rnd.randint(1, SITES)
        notes.append(request_line({"event": f"bench-{rnd.randint(1, TEMPLATES_PER_SITE)}",
                                   "email": f"rcpt{rnd.randint(1, 9999)}@example.com",
                                   "data": {"name": "Ada <Lovelace>", "order": str(rnd.randint(1000, 99999))}},
                                  site_headers(stack, site)))
    return {"getFolderLimits": folders, "notification": notes}


def admin_token(stack, site):
    """The account token of a new admin of `site` signed in with a second
    factor (TOTP enrolled with oathtool's code, then a recovery code), as the
    management API requires (docs/api.md "Site administration")."""
    email = f"bench-admin-{os.getpid()}-{time.time_ns() % 10**9}@example.com"
    stack.admin("user", "create", "--email", email, "--site", str(site), "--verified", stdin=PASSWORD + "\n")
    stack.admin("site", "admin", "add", "--site", str(site), "--email", email, "--role", "admin")
    client = Client(stack.url(""))
    status, first = client.post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
    assert status == 200, (status, first)
    status, setup = client.post("/auth/mfa/totp/setup", {}, first["token"]["account_token"])
    assert status == 200, (status, setup)
    code = run(["oathtool", "--totp", "-b", "--now", "@%d" % (int(time.time()) - 30), setup["secret"]]).stdout.strip()
    status, confirm = client.post("/auth/mfa/totp/confirm", {"code": code}, first["token"]["account_token"])
    assert status == 200, (status, confirm)
    status, challenge = client.post("/auth/login", {"email": email, "password": PASSWORD, "appID": site})
    assert status == 401 and "mfa_token" in challenge, (status, challenge)
    status, verified = client.post("/auth/mfa/verify", {"mfa_token": challenge["mfa_token"],
                                                         "recovery_code": confirm["recovery_codes"][0]})
    assert status == 200, (status, verified)
    return verified["token"]["account_token"]


def preview_template_id(stack):
    """The template the preview arm renders: site 1's bench-1, which the notification arm also sends."""
    return int(stack.sql("SELECT id FROM svc_notifications WHERE site_id = 1 AND event = 'bench-1';").strip())


def preview_request_lines(stack, rnd):
    """The template-preview arm (issue 49): an admin of site 1 previews bench-1 with the notification
    arm's kind of sample data."""
    headers = {"Authorization": "Bearer " + admin_token(stack, 1)}
    return {"template-preview": [request_line({"data": {"name": "Ada <Lovelace>", "order": str(rnd.randint(1000, 99999))}},
                                              headers) for _ in range(1000)]}
