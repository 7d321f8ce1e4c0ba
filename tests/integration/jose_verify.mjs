// Verifies svc access tokens with npm `jose` exactly as docs/api.md
// "Verifying access tokens" tells a consumer to (test_token_interop.py keeps
// the documented function and the one below identical): the key set from
// the JWKS URL, the algorithm from the key, header typ at+jwt, iss, aud, exp.
//
//   SVC_JWKS_URL=http://.../.well-known/jwks.json SVC_ISSUER=https://...
//   SVC_AUDIENCE=https://... node jose_verify.mjs < tokens
//
// One token per line on stdin; prints one JSON line per token:
// {"ok":true,"payload":{...},"header":{...}} or {"ok":false,"code":"ERR_...","message":...}.
// jose is imported from the repository root's node_modules (package.json pins
// jose@6.2.18); without it the script exits 2 with a message saying so.

let jose;
try {
  jose = await import('jose');
} catch (e) {
  process.stderr.write(
    'jose_verify.mjs: npm package "jose" not found in the repository root\'s node_modules ' +
      '(run `npm ci` there; package.json pins jose@6.2.18): ' + e.message + '\n');
  process.exit(2);
}
const { createRemoteJWKSet, jwtVerify } = jose;

// --- the documented check (docs/api.md) -------------------------------------
const JWKS = createRemoteJWKSet(new URL(process.env.SVC_JWKS_URL));  // cached; refetched on an unknown kid

export async function verifyAccessToken(token) {
  const { payload } = await jwtVerify(token, JWKS, {
    algorithms: ['ES256', 'EdDSA'],  // and each key's own alg: never the token's choice
    typ: 'at+jwt',
    issuer: process.env.SVC_ISSUER,
    audience: process.env.SVC_AUDIENCE,  // your site's audience (svc-admin site show)
    requiredClaims: ['sub', 'exp', 'iat'],  // exp is checked against the clock
  });
  return payload;  // payload.sub: the user id; payload.tbl: its user table; payload.client_id: the appID
}
// -----------------------------------------------------------------------------

const input = await new Promise((resolve) => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => resolve(text));
});
for (const token of input.split('\n').filter((line) => line !== '')) {
  try {
    const payload = await verifyAccessToken(token);
    console.log(JSON.stringify({ ok: true, payload, header: jose.decodeProtectedHeader(token) }));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, code: e.code || e.name, message: e.message }));
  }
}
