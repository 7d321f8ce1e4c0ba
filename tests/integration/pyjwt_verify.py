"""Verifies svc access tokens with PyJWT (Debian python3-jwt) exactly as
docs/api.md "Verifying access tokens" tells a consumer to (test_token_interop.py
keeps the documented function and the one below identical).

    SVC_JWKS_URL=http://.../.well-known/jwks.json SVC_ISSUER=https://... \
    SVC_AUDIENCE=https://... /usr/bin/python3 pyjwt_verify.py < tokens

One token per line on stdin; prints one JSON line per token:
{"ok": true, "payload": {...}} or {"ok": false, "code": "<exception class>", "message": ...}.
"""

import json
import os
import sys

# --- the documented check (docs/api.md) -------------------------------------
import jwt  # PyJWT 2 (Debian: python3-jwt)

JWKS = jwt.PyJWKClient(os.environ["SVC_JWKS_URL"])  # caches the key set; refetches on an unknown kid
ALGORITHM_OF_KEY = {"EC": "ES256", "OKP": "EdDSA"}


def verify_access_token(token):
    if jwt.get_unverified_header(token).get("typ") != "at+jwt":
        raise jwt.InvalidTokenError("typ is not at+jwt")
    key = JWKS.get_signing_key_from_jwt(token)  # by kid; PyJWKClientError when unknown
    algorithm = ALGORITHM_OF_KEY[key.key_type]  # from the key, never from the token
    return jwt.decode(token, key.key, algorithms=[algorithm],
                      issuer=os.environ["SVC_ISSUER"],
                      audience=os.environ["SVC_AUDIENCE"],  # your site's audience (svc-admin site show)
                      options={"require": ["iss", "sub", "aud", "exp", "iat"]})  # exp is checked
# -----------------------------------------------------------------------------


def main():
    for line in sys.stdin:
        token = line.strip()
        if not token:
            continue
        try:
            verdict = {"ok": True, "payload": verify_access_token(token)}
        except Exception as e:  # every refusal is a verdict, whatever its class
            verdict = {"ok": False, "code": type(e).__name__, "message": str(e)}
        print(json.dumps(verdict), flush=True)


if __name__ == "__main__":
    main()
