"""ID token algorithm per client (issue 39, docs/oidc.md, docs/decisions.md
"Issue 39: ID token algorithm per client"): `svc-admin oauth-client create
--id-token-alg RS256|ES256|EdDSA`, discovery listing the three, and each
client's ID tokens signed with the site's current key of its algorithm.
python3-authlib, as an independent relying party, verifies the ES256 and
EdDSA ID tokens against the published JWKS itself (signature, iss, aud,
exp, nonce, at_hash); every reply is checked against docs/openapi.yaml.

at_hash of an EdDSA token is the left half of the access token's SHA-512
(Ed25519's hash; OpenID Connect issue 1125's resolution). authlib 1.2
derives the hash from the alg's digits and has none for "EdDSA", so that
one at_hash is checked here instead.
"""

import base64
import hashlib
import time

import requests
from authlib.common.security import generate_token
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

import svc_stack
from svc_stack import ApiTest, admin, cache_seconds, wait_for_every_worker
from test_oidc_authlib import ISSUER, Browser, callback_params, new_client, new_user, session_for

KEY_CACHE = cache_seconds("tokens", "key_cache_seconds", 5)  # how long a worker keeps its key set


def key_states():
    """[(kid, alg, state)] of `svc-admin signing-keys list`."""
    lines = admin("signing-keys", "list").stdout.splitlines()[1:]
    return [tuple(line.split()[:3]) for line in lines if line.strip()]


def jwks():
    return requests.get(ISSUER + "/jwks").json()


def ensure_active_keys(algs):
    """An active key of each of `algs` (the stack starts with ES256 and RS256
    only). A key made with --now also takes over access tokens, so the
    access-token signer's algorithm is rotated again after, as it was."""
    states = key_states()
    active = {alg for _, alg, state in states if state in ("signing", "verifying")}
    missing = [alg for alg in algs if alg not in active]
    if not missing:
        return
    access = next(alg for _, alg, state in states if state == "signing" and alg != "RS256")
    made = [admin("signing-keys", "rotate", "--alg", alg, "--now").stdout.strip() for alg in missing + [access]]
    wait_for_every_worker("the new keys in the key set", lambda: set(made) <= {k["kid"] for k in jwks()["keys"]},
                          time.time(), KEY_CACHE)


class IdTokenAlgTest(ApiTest):
    @classmethod
    def setUpClass(cls):
        ensure_active_keys(["ES256", "EdDSA"])
        cls.meta = requests.get(ISSUER + "/.well-known/openid-configuration").json()

    def id_token_of(self, client):
        """A code + PKCE flow of a fresh user through the hosted sign-in; (token reply, nonce)."""
        email, _ = new_user("oidc-alg")
        oauth = session_for(client, scope="openid email profile offline_access")  # a refresh token below
        verifier, nonce = generate_token(48), generate_token(20)
        url, _ = oauth.create_authorization_url(self.meta["authorization_endpoint"], code_verifier=verifier,
                                                nonce=nonce)
        _, location = callback_params(Browser().sign_in(url, email))
        token = oauth.fetch_token(self.meta["token_endpoint"], authorization_response=location,
                                  code_verifier=verifier)
        return oauth, token, nonce

    def verified(self, id_token, client_id, nonce, access_token):
        eddsa = jwt.decode(id_token, JsonWebKey.import_key_set(jwks())).header["alg"] == "EdDSA"
        claims = jwt.decode(id_token, JsonWebKey.import_key_set(jwks()), claims_cls=CodeIDToken,
                            claims_options={"iss": {"essential": True, "value": ISSUER},
                                            "aud": {"essential": True, "value": client_id}},
                            claims_params={"nonce": nonce, "client_id": client_id,
                                           "access_token": None if eddsa else access_token})
        claims.validate()
        if eddsa:
            left = hashlib.sha512(access_token.encode()).digest()[:32]
            self.assertEqual(claims["at_hash"], base64.urlsafe_b64encode(left).rstrip(b"=").decode())
        return claims

    def test_discovery_lists_the_three_algorithms(self):
        self.assertEqual(self.meta["id_token_signing_alg_values_supported"], ["RS256", "ES256", "EdDSA"])

    def test_es256_and_eddsa_clients_get_id_tokens_of_their_algorithm(self):
        published = {k["kid"]: k for k in jwks()["keys"]}
        for alg, kty in (("ES256", "EC"), ("EdDSA", "OKP"), (None, "RSA")):
            with self.subTest(alg=alg):
                flags = ["--first-party"] + (["--id-token-alg", alg] if alg else [])
                client = new_client(*flags, name="RP %s" % alg)
                shown = admin("oauth-client", "show", client["client_id"]).stdout
                self.assertIn("id_token_alg %s\n" % (alg or "RS256"), shown)
                oauth, token, nonce = self.id_token_of(client)
                claims = self.verified(token["id_token"], client["client_id"], nonce, token["access_token"])
                self.assertEqual(claims.header["alg"], alg or "RS256")
                self.assertEqual(published[claims.header["kid"]]["kty"], kty)
                # A refresh's ID token is of the same algorithm.
                fresh = oauth.refresh_token(self.meta["token_endpoint"], refresh_token=token["refresh_token"])
                again = self.verified(fresh["id_token"], client["client_id"], None, fresh["access_token"])
                self.assertEqual(again.header["alg"], alg or "RS256")

    def test_an_unknown_algorithm_is_refused_at_registration(self):
        for alg in ("HS256", "none", "es256"):
            with self.subTest(alg=alg):
                refused = admin("oauth-client", "create", "--site", "1", "--name", "Bad", "--redirect-uri",
                                "https://rp.example/cb", "--id-token-alg", alg, check=False)
                self.assertEqual(refused.returncode, 2, refused.stderr)
                self.assertIn("--id-token-alg expects RS256, ES256 or EdDSA", refused.stderr)


if __name__ == "__main__":
    svc_stack.main()
