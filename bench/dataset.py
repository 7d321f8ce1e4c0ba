"""The benchmark's data set: users, sites, templates, folders, customers and
legacy passwords loaded into the stack, and the wrk body files of every arm.
Part of bench/bench.py; stdlib only.
"""

import base64
import hashlib
import json
import os
import random
import re
import subprocess
import time
import urllib.request

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
CUSTOMERS = 100
CUSTOMER_ID_BASE = 1000      # bench customer n has id CUSTOMER_ID_BASE + n
LEGACY_USERS = 20_000        # PHP openssl_encrypt (AES) passwords; enough that no one hits the login throttle
LEGACY_ID_BASE = 300_000


# The x-site-key of the bench's own sites 2..SITES (site 1 is the stack's demo
# site, whose key is SITE_KEY in the stack's env file).
BENCH_SITE_KEY = "bench-site-key-not-a-secret"


def site_headers(stack, site):
    """The wrk arm header text of a backend call of `site` (id and key)."""
    return "site-id: %d|x-site-key: %s" % (site, stack.site_key if site == 1 else BENCH_SITE_KEY)

def legacy_aes(stack):
    """PASSWORD as the PHP service stored it: base64(iv . openssl_encrypt(pw, 'aes-256-cbc', key, RAW, iv)),
    the key NUL-padded to 32 bytes as PHP does."""
    key = re.search(r"^legacy_password_key\s*=\s*(.*)$", stack.config.read_text(), re.M).group(1).strip()
    iv = os.urandom(16)
    ct = subprocess.run(["openssl", "enc", "-aes-256-cbc", "-K", key.encode()[:32].ljust(32, b"\0").hex(),
                         "-iv", iv.hex()], input=PASSWORD.encode(), capture_output=True, check=True).stdout
    return base64.b64encode(iv + ct).decode()


def load_data(stack, out):
    log("loading the data set")
    password_hash = stack.admin("hash-password", stdin=PASSWORD + "\n")
    assert password_hash.startswith("$argon2id$"), password_hash
    sub_p256dh, sub_auth = run([str(stack.helpers / "push_raw"), "subscription"]).stdout.split()
    stack.admin("vapid-keys", "--site", "1")
    t0 = time.monotonic()
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
INSERT INTO svc_customers (id, site_id, name, pushsubscription, p256dh, auth)
  SELECT {CUSTOMER_ID_BASE} + seq, 1, CONCAT('Customer ', seq), CONCAT('http://127.0.0.1:{stack.push_port}/push/', seq),
         '{sub_p256dh}', '{sub_auth}'
  FROM seq_1_to_{CUSTOMERS};
INSERT INTO svc_users (id, user_email, password, first_name, last_name, primary_role)
  SELECT {LEGACY_ID_BASE} + seq, CONCAT('legacy', seq, '@example.com'), '{legacy_aes(stack)}', 'Legacy', 'User', 'user'
  FROM seq_1_to_{LEGACY_USERS};
ANALYZE TABLE svc_users, svc_related, svc_folders, svc_notifications, svc_customers;
""")
    counts = stack.sql("SELECT (SELECT COUNT(*) FROM svc_users), (SELECT COUNT(*) FROM svc_related), "
                       "(SELECT COUNT(*) FROM svc_notifications), (SELECT COUNT(*) FROM svc_sites);").split()
    log(f"data set loaded in {time.monotonic() - t0:.1f}s: users={counts[0]} links={counts[1]} "
        f"templates={counts[2]} sites={counts[3]}")

    rnd = random.Random(7)
    files = {}

    def write(name, lines):
        path = out / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        files[name] = str(path)

    # login: random known users (one shared hash, so every verify costs the same)
    write("login", [json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "password": PASSWORD,
                                "appID": 1}) for _ in range(2000)])
    write("login-unknown", ['\t' + json.dumps({"email": "nobody-{uniq}@example.com", "password": PASSWORD,
                                               "appID": 1})])
    # the same wrong password for random legacy-AES users (each verify is microseconds without the dummy)
    write("login-legacy-wrong", [json.dumps({"email": f"legacy{rnd.randint(1, LEGACY_USERS)}@example.com",
                                             "password": "Wrong@2026!", "appID": 1}) for _ in range(2000)])
    # request-pass: registered users (mailed) and unknown addresses (not), same site
    write("request-pass", [json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "appID": 2})
                           for _ in range(2000)])
    write("request-pass-unknown", ['\t' + json.dumps({"email": "nobody-{uniq}@example.com", "appID": 2})])
    # email-code: registered users (a code mailed, or the resend rule) and unknown addresses, same site
    write("email-code", [json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "appID": 2})
                         for _ in range(2000)])
    write("email-code-unknown", ['\t' + json.dumps({"email": "nobody-{uniq}@example.com", "appID": 2})])
    write("sign-up", ['\t' + json.dumps({"email": "new-{uniq}@example.com", "password": "Analytical@1",
                                         "firstname": "Ada", "lastname": "Lovelace", "appID": 1})])
    # refresh-token: tokens of 16 real logins
    pairs = []
    for _ in range(16):
        body = json.dumps({"email": f"bench{rnd.randint(1, USERS)}@example.com", "password": PASSWORD}).encode()
        req = urllib.request.Request(stack.url("/auth/login"), data=body,
                                     headers={"Content-Type": "application/json"})
        token = json.loads(urllib.request.urlopen(req, timeout=30).read())["token"]
        pairs.append(json.dumps({"payload": {"access_token": token["access_token"],
                                             "refresh_token": token["refresh_token"]}}))
    write("refresh-token", pairs)
    # user-email: encrypted ids of 64 random users
    write("user-email", [json.dumps({"userId": stack.admin("mint-user-id", "--user",
                                                             str(USER_ID_BASE + rnd.randint(1, USERS)),
                                                             "--ttl", "2h")}) for _ in range(64)])
    # getFolderLimits: users with folder links, in the site their folders belong to
    linked_users = FOLDER_LINKS // LINKS_PER_USER
    lines = []
    for _ in range(1000):
        u = rnd.randint(1, linked_users)
        app = (u % SITES) + 1
        lines.append(site_headers(stack, app) + "\t" +
                     json.dumps({"appID": app, "table": "svc_folders", "userId": USER_ID_BASE + u}))
    write("getFolderLimits", lines)
    # notification: 10 sites x 5 templates, site-id header per request
    lines = []
    for _ in range(1000):
        site = rnd.randint(1, SITES)
        lines.append(site_headers(stack, site) + "\t" + json.dumps({
            "event": f"bench-{rnd.randint(1, TEMPLATES_PER_SITE)}", "email": f"rcpt{rnd.randint(1, 9999)}@example.com",
            "data": {"name": "Ada <Lovelace>", "order": str(rnd.randint(1000, 99999))}}))
    write("notification", lines)
    # sendPush: customers of site 1
    lines = []
    for c in range(1, 33):
        token = stack.admin("mint-customer-id", "--customer", str(CUSTOMER_ID_BASE + c), "--ttl", "2h")
        lines.append(site_headers(stack, 1) + "\t" + json.dumps({"customerID": token, "title": "Hi", "message": "Your order shipped",
                                                 "data": {"order": 42}}))
    write("push", lines)

    # One real notification: the prototype row the sender arms copy.
    body = json.dumps({"event": "bench-1", "email": "proto@example.com",
                       "data": {"name": "Ada <Lovelace>", "order": "4242"}}).encode()
    req = urllib.request.Request(stack.url("/message/notification"), data=body,
                                 headers={"Content-Type": "application/json", "site-id": "1",
                                          "x-site-key": stack.site_key})
    assert json.loads(urllib.request.urlopen(req, timeout=30).read())["status"] == "Success"
    proto = int(stack.sql("SELECT MAX(id) FROM svc_notification_log WHERE recipient = 'proto@example.com';").strip())
    return files, password_hash, proto, counts
