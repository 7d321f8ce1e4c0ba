"""A real OpenID Connect relying party for the provider's tests: Debian's
Apache with mod_auth_openidc and mod_php, run in a directory of its own on
loopback ports (never the system service). Each app is a virtual host on
its own port whose /protected/ is guarded by mod_auth_openidc and holds
index.php, which prints the claims Apache set (OIDC_CLAIM_email, ...) as
JSON. Stdlib only.

    with ApacheRP([App(port, client_id, secret, issuer), ...]) as rp:
        ... rp.url(0, "/protected/") ...
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

APACHE = "/usr/sbin/apache2"
MODULES = "/usr/lib/apache2/modules"
LOAD = ["mpm_prefork", "authz_core", "authn_core", "authz_user", "mime", "dir", "headers", "env"]

INDEX_PHP = r"""<?php
// What the relying party knows about the signed-in user: the claims
// mod_auth_openidc set from the ID token and userinfo.
header('Content-Type: application/json');
header('Cache-Control: no-store');
$claims = [];
foreach ($_SERVER as $k => $v) {
    if (strncmp($k, 'OIDC_CLAIM_', 11) === 0) { $claims[substr($k, 11)] = $v; }
}
ksort($claims);
echo json_encode(['app' => getenv('RP_APP'), 'remote_user' => $_SERVER['REMOTE_USER'] ?? null,
                  'claims' => $claims]);
"""


@dataclass
class App:
    port: int
    client_id: str
    client_secret: str
    issuer: str          # the provider's issuer; discovery at issuer + /.well-known/openid-configuration
    name: str = "app"
    scope: str = "openid email profile"
    extra: str = ""      # more mod_auth_openidc directives for this virtual host

    @property
    def origin(self):
        return "http://localhost:%d" % self.port

    @property
    def redirect_uri(self):
        return self.origin + "/protected/redirect_uri"

    @property
    def logged_out_url(self):
        return self.origin + "/loggedout.html"

    def logout_url(self):
        """mod_auth_openidc's local logout, which goes on to the provider's end_session_endpoint."""
        return self.redirect_uri + "?logout=" + urllib.request.quote(self.logged_out_url, safe="")


def available():
    """None when Apache, mod_auth_openidc and mod_php are installed, else what is missing."""
    for path in (APACHE, f"{MODULES}/mod_auth_openidc.so", f"{MODULES}/libphp8.2.so"):
        if not os.path.exists(path):
            return path
    return None


class ApacheRP:
    def __init__(self, apps):
        # Its own directory under /tmp: Apache's children run as www-data and
        # need every directory above their files to be traversable.
        self.dir = Path(tempfile.mkdtemp(prefix="svc-apache-rp-"))
        self.apps = apps
        self.proc = None

    def url(self, i, path):
        return self.apps[i].origin + path

    def _vhost(self, i, app):
        root = self.dir / f"app{i}"
        (root / "protected").mkdir(parents=True, exist_ok=True)
        (root / "protected" / "index.php").write_text(INDEX_PHP)
        (root / "loggedout.html").write_text("<!doctype html><title>signed out</title><p>signed out</p>\n")
        (root / "index.html").write_text("<!doctype html><title>public</title><p>public page</p>\n")
        return f"""
<VirtualHost 127.0.0.1:{app.port}>
    ServerName localhost
    DocumentRoot {root}
    SetEnv RP_APP {app.name}
    <Directory {root}>
        Require all granted
    </Directory>
    OIDCProviderMetadataURL {app.issuer}/.well-known/openid-configuration
    OIDCClientID {app.client_id}
    OIDCClientSecret {app.client_secret}
    OIDCRedirectURI {app.redirect_uri}
    OIDCCryptoPassphrase {os.urandom(16).hex()}
    OIDCScope "{app.scope}"
    OIDCPKCEMethod S256
    OIDCRemoteUserClaim sub
    OIDCPassClaimsAs environment
    OIDCSessionType server-cache
    OIDCCookie rp_session_{i}
    OIDCStateCookiePrefix rp_state_{i}_
    OIDCDefaultLoggedOutURL {app.logged_out_url}
    OIDCRedirectURLsAllowed ^http://localhost:{app.port}/
    OIDCCacheType shm
    {app.extra}
    <Location /protected>
        AuthType openid-connect
        Require valid-user
    </Location>
</VirtualHost>
"""

    def config(self):
        loads = "\n".join(f"LoadModule {m}_module {MODULES}/mod_{m}.so" for m in LOAD)
        listens = "\n".join(f"Listen 127.0.0.1:{a.port}" for a in self.apps)
        user = "User www-data\nGroup www-data" if os.geteuid() == 0 else ""
        return f"""# Written by tests/integration/apache_rp.py
ServerRoot {self.dir}
PidFile {self.dir}/httpd.pid
ErrorLog {self.dir}/error.log
LogLevel warn auth_openidc:info
LogFormat "%h %t \\"%r\\" %>s" short
CustomLog {self.dir}/access.log short
{loads}
LoadModule php_module {MODULES}/libphp8.2.so
LoadModule auth_openidc_module {MODULES}/mod_auth_openidc.so
{user}
ServerName localhost
StartServers 2
MaxRequestWorkers 8
TypesConfig /etc/mime.types
DirectoryIndex index.php index.html
<FilesMatch "\\.php$">
    SetHandler application/x-httpd-php
</FilesMatch>
Mutex file:{self.dir} default
<Directory />
    AllowOverride None
    Require all denied
</Directory>
{listens}
{"".join(self._vhost(i, a) for i, a in enumerate(self.apps))}
"""

    def __enter__(self):
        os.chmod(self.dir, 0o755)   # the children run as www-data
        conf = self.dir / "httpd.conf"
        conf.write_text(self.config())
        check = subprocess.run([APACHE, "-t", "-f", str(conf)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError("apache2 -t: " + check.stderr)
        self.proc = subprocess.Popen([APACHE, "-f", str(conf), "-DFOREGROUND"], stdout=subprocess.DEVNULL,
                                     stderr=open(self.dir / "stderr.log", "w"), start_new_session=True)
        deadline = time.monotonic() + 20
        for app in self.apps:
            while True:
                try:
                    urllib.request.urlopen(app.origin + "/index.html", timeout=2).read()
                    break
                except OSError:
                    if self.proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError("apache2 did not start: " + self.log())
                    time.sleep(0.05)
        return self

    def log(self):
        out = []
        for name in ("stderr.log", "error.log"):
            p = self.dir / name
            if p.exists():
                out.append(p.read_text(errors="replace")[-4000:])
        return "\n".join(out)

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)
