<?php
// The PHP client's own check (clients/php: Client::verifyAccessToken) as the
// token interop test runs it: the site backend's view, through the JWKS URL.
//   SVC_JWKS_URL=http://.../.well-known/jwks.json SVC_ISSUER=https://...
//   SVC_AUDIENCE=https://... php php_client_verify.php < tokens
// One token per line on standard input; one JSON object per token on
// standard output: {"ok": true, "payload": {...}} or {"ok": false,
// "reason": InvalidTokenException::reason(), "message": ...}. Leeway 0, so
// a token is expired exactly when its exp has passed. Exit 0; 2 when the key
// set cannot be fetched or the options are refused.

require __DIR__ . '/../../clients/php/autoload.php';

use Svc\Client\Client;
use Svc\Client\InvalidTokenException;

$jwks = getenv('SVC_JWKS_URL');
$client = new Client(preg_replace('#/\.well-known/jwks\.json$#', '', $jwks), [
    'issuer' => getenv('SVC_ISSUER'),
    'audience' => getenv('SVC_AUDIENCE'),
    'jwksUrl' => $jwks,
    'leeway' => 0,
]);
while (($line = fgets(STDIN)) !== false) {
    $jwt = trim($line);
    try {
        $claims = $client->verifyAccessToken($jwt);
        echo json_encode(['ok' => true, 'payload' => $claims]), "\n";
    } catch (InvalidTokenException $e) {
        echo json_encode(['ok' => false, 'reason' => $e->reason(), 'message' => $e->getMessage()]), "\n";
    } catch (Throwable $e) {
        fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
        exit(2);
    }
}
