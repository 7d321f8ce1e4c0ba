<?php
// Independent JWT checkers for the integration tests, in plain PHP
// (ext-openssl, ext-sodium, ext-json): nothing shared with the C++ code.
//
// Access tokens, as docs/api.md "Verifying access tokens" tells a PHP
// backend to check them (the function svc_verify_access_token below is the
// documented example; test_token_interop.py keeps the two identical):
//   SVC_JWKS_URL=http://.../.well-known/jwks.json SVC_ISSUER=https://...
//   SVC_AUDIENCE=https://... php jwt_check.php < tokens
//
// Refresh tokens and other HS256 tokens of svc (internal symmetric keys):
//   SVC_JWT_SECRET=<base64url secret> php jwt_check.php < tokens
//
// Reads one token per line on standard input and prints one JSON object per
// token: {"valid": bool, "reason": string, "header": {...}|null,
// "payload": {...}|null}. Exit status: 0 when every token is valid, 1
// otherwise, 2 on usage errors.

function b64url_decode(string $s) {
    if ($s === '' || preg_match('/[^A-Za-z0-9_-]/', $s)) {
        return false;
    }
    $pad = strlen($s) % 4;
    if ($pad === 1) {
        return false;
    }
    if ($pad) {
        $s .= str_repeat('=', 4 - $pad);
    }
    return base64_decode(strtr($s, '-_', '+/'), true);
}

// --- the documented check (docs/api.md) -------------------------------------
// $jwks: the decoded JSON of https://<svc>/.well-known/jwks.json (cache it for
// its Cache-Control max-age; fetch again once when a kid is unknown).
function svc_verify_access_token(string $jwt, array $jwks, string $issuer, string $audience): array {
    $b64 = fn (string $s) => base64_decode(strtr($s, '-_', '+/'), true);
    $parts = explode('.', $jwt);
    if (count($parts) !== 3) throw new RuntimeException('not a JWS');
    [$h, $p, $s] = $parts;
    $header = json_decode((string) $b64($h), true);
    $claims = json_decode((string) $b64($p), true);
    $sig = $b64($s);
    if (!is_array($header) || !is_array($claims) || $sig === false) throw new RuntimeException('malformed');
    if (($header['typ'] ?? null) !== 'at+jwt') throw new RuntimeException('typ is not at+jwt');
    $jwk = null;
    foreach ($jwks['keys'] ?? [] as $k) {
        if (isset($header['kid']) && ($k['kid'] ?? null) === $header['kid']) $jwk = $k;
    }
    if ($jwk === null) throw new RuntimeException('unknown kid');
    // The algorithm comes from the key, never from the token.
    if (($header['alg'] ?? null) !== $jwk['alg']) throw new RuntimeException('alg does not match the key');
    $input = "$h.$p";
    if ($jwk['alg'] === 'EdDSA' && $jwk['kty'] === 'OKP' && $jwk['crv'] === 'Ed25519') {
        $ok = strlen($sig) === SODIUM_CRYPTO_SIGN_BYTES
            && sodium_crypto_sign_verify_detached($sig, $input, $b64($jwk['x']));
    } elseif ($jwk['alg'] === 'ES256' && $jwk['kty'] === 'EC' && $jwk['crv'] === 'P-256') {
        // SubjectPublicKeyInfo of the P-256 point 04 || x || y, and the raw
        // r || s signature re-encoded as the DER OpenSSL expects.
        $spki = hex2bin('3059301306072a8648ce3d020106082a8648ce3d030107034200') . "\x04"
            . $b64($jwk['x']) . $b64($jwk['y']);
        $pem = "-----BEGIN PUBLIC KEY-----\n" . chunk_split(base64_encode($spki), 64, "\n") . "-----END PUBLIC KEY-----\n";
        $int = function (string $n) {
            $n = ltrim($n, "\x00");
            if ($n === '' || ord($n[0]) > 0x7f) $n = "\x00" . $n;
            return "\x02" . chr(strlen($n)) . $n;
        };
        $der = strlen($sig) === 64 ? $int(substr($sig, 0, 32)) . $int(substr($sig, 32)) : '';
        $ok = $der !== '' && openssl_verify($input, "\x30" . chr(strlen($der)) . $der, $pem, OPENSSL_ALGO_SHA256) === 1;
    } else {
        throw new RuntimeException('unsupported key');
    }
    if (!$ok) throw new RuntimeException('bad signature');
    if (($claims['iss'] ?? null) !== $issuer) throw new RuntimeException('wrong iss');
    if (!in_array($audience, (array) ($claims['aud'] ?? []), true)) throw new RuntimeException('wrong aud');
    if (!is_int($claims['exp'] ?? null) || $claims['exp'] <= time()) throw new RuntimeException('expired');
    if (!is_string($claims['sub'] ?? null)) throw new RuntimeException('no sub');
    return $claims;  // sub: the user id; tbl: its user table; client_id: the appID
}
// -----------------------------------------------------------------------------

function check_hs256(string $token, string $secret): array {
    $out = ['valid' => false, 'reason' => '', 'header' => null, 'payload' => null];
    $parts = explode('.', $token);
    if (count($parts) !== 3) {
        $out['reason'] = 'not three parts';
        return $out;
    }
    [$h, $p, $s] = $parts;
    $header = b64url_decode($h);
    $payload = b64url_decode($p);
    $sig = b64url_decode($s);
    if ($header === false || $payload === false || $sig === false) {
        $out['reason'] = 'bad base64url';
        return $out;
    }
    $out['header'] = json_decode($header, true);
    $out['payload'] = json_decode($payload, true);
    if (!is_array($out['header']) || !is_array($out['payload'])) {
        $out['reason'] = 'header or payload is not a JSON object';
        return $out;
    }
    $expected = hash_hmac('sha256', $h . '.' . $p, $secret, true);
    if (!hash_equals($expected, $sig)) {
        $out['reason'] = 'signature mismatch';
        return $out;
    }
    $out['valid'] = true;
    return $out;
}

function check_access(string $token, array $jwks, string $issuer, string $audience): array {
    $out = ['valid' => false, 'reason' => '', 'header' => null, 'payload' => null];
    $parts = explode('.', $token);
    $out['header'] = json_decode((string) b64url_decode($parts[0]), true);
    try {
        $out['payload'] = svc_verify_access_token($token, $jwks, $issuer, $audience);
        $out['valid'] = true;
    } catch (RuntimeException $e) {
        $out['reason'] = $e->getMessage();
    }
    return $out;
}

$jwks_url = (string) getenv('SVC_JWKS_URL');
if ($jwks_url !== '') {
    $jwks = json_decode((string) file_get_contents($jwks_url), true);
    if (!is_array($jwks)) {
        fwrite(STDERR, "jwt_check.php: no JSON key set at $jwks_url\n");
        exit(2);
    }
    $check = fn (string $t) => check_access($t, $jwks, (string) getenv('SVC_ISSUER'), (string) getenv('SVC_AUDIENCE'));
} else {
    $secret = b64url_decode((string) getenv('SVC_JWT_SECRET'));
    if ($secret === false || strlen($secret) < 32) {
        fwrite(STDERR, "jwt_check.php: set SVC_JWKS_URL (access tokens) or SVC_JWT_SECRET (HS256)\n");
        exit(2);
    }
    $check = fn (string $t) => check_hs256($t, $secret);
}
$all = true;
while (($line = fgets(STDIN)) !== false) {
    $token = trim($line);
    if ($token === '') {
        continue;
    }
    $r = $check($token);
    $all = $all && $r['valid'];
    echo json_encode($r, JSON_UNESCAPED_SLASHES), "\n";
}
exit($all ? 0 : 1);
