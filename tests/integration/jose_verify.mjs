// Verifies svc access tokens with npm `jose` exactly as docs/api.md
// "Verifying access tokens" tells a consumer to (keep the two in step):
// alg HS256 only, the key chosen by `kid`, header typ "JWT", aud "svc-access",
// exp (and sub present).
//
//   SVC_JWT_KEYS='{"<kid>":"<base64url secret>",...}' node jose_verify.mjs < tokens
//
// One token per line on stdin; prints one JSON line per token:
// {"ok":true,"payload":{...}} or {"ok":false,"code":"ERR_JWT_...","message":...}.
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

const keys = JSON.parse(process.env.SVC_JWT_KEYS || '{}');

// --- the documented check -------------------------------------------------
async function verifyAccessToken(token) {
  const getKey = async (header) => {
    const secret = Object.hasOwn(keys, header.kid) ? keys[header.kid] : undefined;
    if (typeof header.kid !== 'string' || !secret) throw new jose.errors.JWKSNoMatchingKey();
    return Buffer.from(secret, 'base64url');
  };
  const { payload } = await jose.jwtVerify(token, getKey, {
    algorithms: ['HS256'],
    typ: 'JWT',
    audience: 'svc-access',
    requiredClaims: ['sub', 'exp'],
  });
  return payload;
}
// ---------------------------------------------------------------------------

const input = await new Promise((resolve) => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => (text += chunk));
  process.stdin.on('end', () => resolve(text));
});
for (const token of input.split('\n').filter((line) => line !== '')) {
  try {
    const payload = await verifyAccessToken(token);
    console.log(JSON.stringify({ ok: true, payload }));
  } catch (e) {
    console.log(JSON.stringify({ ok: false, code: e.code || e.name, message: e.message }));
  }
}
