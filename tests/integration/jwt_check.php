<?php
// Independent JWT (HS256) checker for the integration tests: PHP's own
// base64 and hash_hmac, nothing shared with the C++ implementation.
//
//   SVC_JWT_SECRET=<base64url secret> php jwt_check.php < tokens
//
// Reads one token per line on standard input and prints one JSON object per
// token: {"valid": bool, "reason": string, "header": {...}|null,
// "payload": {...}|null}. "valid" means: three dot-separated base64url parts,
// header and payload are JSON objects, and the signature equals
// HMAC-SHA256(secret, header "." payload) compared in constant time.
// Exit status: 0 when every token is valid, 1 otherwise, 2 on usage errors.

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

function check(string $token, string $secret): array {
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

$secret = b64url_decode((string) getenv('SVC_JWT_SECRET'));
if ($secret === false || strlen($secret) < 32) {
    fwrite(STDERR, "jwt_check.php: SVC_JWT_SECRET must hold the base64url jwt_secret\n");
    exit(2);
}
$all = true;
while (($line = fgets(STDIN)) !== false) {
    $token = trim($line);
    if ($token === '') {
        continue;
    }
    $r = check($token, $secret);
    $all = $all && $r['valid'];
    echo json_encode($r, JSON_UNESCAPED_SLASHES), "\n";
}
exit($all ? 0 : 1);
