#!/usr/bin/node
'use strict';
// An independent Web Push user agent for the integration tests: node's
// built-in `crypto` only (no npm packages, nothing downloaded at test time),
// written from RFC 8291 (message encryption), RFC 8188 (aes128gcm) and
// RFC 8292 (VAPID) without looking at the server's C++.
//
// One operation per run; the request is a JSON object on stdin, the answer a
// JSON object on stdout. Exit status 0 with {"ok":true,...}, 1 with
// {"ok":false,"error":"..."} (bad tag, bad padding, bad signature...).
//
//   {"op":"keygen"}
//      -> {"p256dh": b64url(65-byte uncompressed P-256 point),
//          "auth": b64url(16 random bytes), "private": b64url(32-byte scalar)}
//   {"op":"decrypt", "private": ..., "auth": ..., "body": b64url(whole body)}
//      -> {"plaintext_b64": ..., "plaintext": utf-8 text, "salt": b64url,
//          "rs": N, "keyid": b64url(sender public key), "records": 1}
//   {"op":"verify_jwt", "jwt": "h.c.s", "public_key": b64url(raw 65 bytes)}
//      -> {"valid": bool, "header": {...}, "claims": {...}}
//   {"op":"selftest"}   decrypts the RFC 8291 section 5 example
//
// Everything base64url is accepted with or without padding and emitted without.

const crypto = require('crypto');

function b64u(buf) {
  return Buffer.from(buf).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unb64u(s) {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]*={0,2}$/.test(s)) throw new Error('not base64url: ' + String(s).slice(0, 40));
  return Buffer.from(s.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function hmac(key, data) {
  return crypto.createHmac('sha256', key).update(data).digest();
}

// RFC 5869 HKDF with a single output block (all lengths here are <= 32).
function hkdf(salt, ikm, info, length) {
  const prk = hmac(salt, ikm);
  return hmac(prk, Buffer.concat([info, Buffer.from([1])])).subarray(0, length);
}

function keygen() {
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    p256dh: b64u(ecdh.getPublicKey(null, 'uncompressed')),
    auth: b64u(crypto.randomBytes(16)),
    private: b64u(ecdh.getPrivateKey()),
  };
}

// RFC 8291 section 3.4 + RFC 8188 section 2: the body is
//   salt(16) || rs(uint32 BE) || idlen(1) || keyid(idlen) || records
// and the keyid is the application server's ephemeral public key (65 bytes).
function decrypt(uaPrivateB64, authB64, bodyB64) {
  const uaPrivate = unb64u(uaPrivateB64);
  const authSecret = unb64u(authB64);
  const body = unb64u(bodyB64);
  if (authSecret.length !== 16) throw new Error('auth secret must be 16 bytes');
  if (body.length < 21) throw new Error('body shorter than the aes128gcm header');
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  if (idlen !== 65) throw new Error('keyid length ' + idlen + ', RFC 8291 requires 65');
  if (rs < 18) throw new Error('record size ' + rs + ' below the minimum 18');
  const asPublic = body.subarray(21, 21 + idlen);
  if (asPublic[0] !== 4) throw new Error('keyid is not an uncompressed P-256 point');
  const records = body.subarray(21 + idlen);
  if (records.length === 0) throw new Error('no record');

  const ecdh = crypto.createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const uaPublic = ecdh.getPublicKey(null, 'uncompressed');
  const ecdhSecret = ecdh.computeSecret(asPublic);

  // RFC 8291 section 3.3: IKM from the ECDH secret and the auth secret.
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0', 'latin1'), uaPublic, asPublic]);
  const ikm = hkdf(authSecret, ecdhSecret, keyInfo, 32);
  // RFC 8188 section 2.2 / 2.3: content-encryption key and nonce from the salt.
  const cek = hkdf(salt, ikm, Buffer.from('Content-Encoding: aes128gcm\0', 'latin1'), 16);
  const baseNonce = hkdf(salt, ikm, Buffer.from('Content-Encoding: nonce\0', 'latin1'), 12);

  const plain = [];
  let count = 0;
  for (let off = 0, seq = 0; off < records.length; off += rs, seq++) {
    const record = records.subarray(off, Math.min(off + rs, records.length));
    const last = off + rs >= records.length;
    if (record.length < 17) throw new Error('record ' + seq + ' too short');
    const nonce = Buffer.from(baseNonce);
    // XOR the sequence number into the low 48 bits (enough for any test body).
    let s = seq;
    for (let i = 11; i >= 6 && s > 0; i--, s = Math.floor(s / 256)) nonce[i] ^= s & 0xff;
    const d = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
    d.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([d.update(record.subarray(0, record.length - 16)), d.final()]);
    // Padding: content || delimiter (0x02 last record, 0x01 otherwise) || 0x00*.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end--;
    if (end < 0) throw new Error('record ' + seq + ' has no padding delimiter');
    const want = last ? 2 : 1;
    if (padded[end] !== want) throw new Error('record ' + seq + ' delimiter ' + padded[end] + ', expected ' + want);
    plain.push(padded.subarray(0, end));
    count++;
  }
  const plaintext = Buffer.concat(plain);
  const text = plaintext.toString('utf8');
  return {
    plaintext_b64: b64u(plaintext),
    plaintext: Buffer.from(text, 'utf8').equals(plaintext) ? text : null,
    salt: b64u(salt),
    rs,
    keyid: b64u(asPublic),
    records: count,
  };
}

// RFC 8292 section 2 / RFC 7515: ES256 over "header.claims" with the 64-byte
// r || s signature; the key is the raw uncompressed point from "k=".
function verifyJwt(jwt, publicKeyB64) {
  const parts = String(jwt).split('.');
  if (parts.length !== 3) throw new Error('JWT must have 3 parts');
  const raw = unb64u(publicKeyB64);
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('public key is not a 65-byte uncompressed point');
  const key = crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) },
    format: 'jwk',
  });
  const sig = unb64u(parts[2]);
  const valid = sig.length === 64 &&
    crypto.verify('sha256', Buffer.from(parts[0] + '.' + parts[1], 'latin1'), { key, dsaEncoding: 'ieee-p1363' }, sig);
  return {
    valid,
    header: JSON.parse(unb64u(parts[0]).toString('utf8')),
    claims: JSON.parse(unb64u(parts[1]).toString('utf8')),
    signature_bytes: sig.length,
  };
}

// RFC 8291 section 5: the published example must decrypt to its plaintext,
// which proves this decryptor implements the RFC (not merely the server).
function selftest() {
  const body = 'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN';
  const r = decrypt('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94', 'BTBZMqHH6r4Tts7J_aSIgg', body);
  const want = 'When I grow up, I want to be a watermelon';
  if (r.plaintext !== want) throw new Error('RFC 8291 example decrypted to ' + JSON.stringify(r.plaintext));
  if (r.rs !== 4096 || r.salt !== 'DGv6ra1nlYgDCS1FRnbzlw') throw new Error('RFC 8291 example header misread');
  // And a tampered body must fail authentication.
  const bad = unb64u(body);
  bad[bad.length - 1] ^= 1;
  let rejected = false;
  try { decrypt('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94', 'BTBZMqHH6r4Tts7J_aSIgg', b64u(bad)); } catch (e) { rejected = true; }
  if (!rejected) throw new Error('a tampered body decrypted');
  return { plaintext: r.plaintext };
}

function main() {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (c) => { input += c; });
  process.stdin.on('end', () => {
    let out;
    try {
      const req = input.trim() ? JSON.parse(input) : {};
      if (req.op === 'keygen') out = keygen();
      else if (req.op === 'decrypt') out = decrypt(req.private, req.auth, req.body);
      else if (req.op === 'verify_jwt') out = verifyJwt(req.jwt, req.public_key);
      else if (req.op === 'selftest') out = selftest();
      else throw new Error('unknown op ' + JSON.stringify(req.op));
      out.ok = true;
      process.stdout.write(JSON.stringify(out) + '\n');
    } catch (e) {
      process.stdout.write(JSON.stringify({ ok: false, error: String(e && e.message || e) }) + '\n');
      process.exitCode = 1;
    }
  });
}

main();
