<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

/**
 * Keys and JWTs made in the test itself, written apart from the client's
 * code (the ES256 signature is converted from DER here, by its own parser)
 * so that a test checks the client against an independent implementation.
 */
final class TokenForge
{
    public static function b64(string $bytes): string
    {
        return rtrim(strtr(base64_encode($bytes), '+/', '-_'), '=');
    }

    /** A fresh P-256 key: ['private' => OpenSSLAsymmetricKey, 'jwk' => public JWK]. */
    public static function es256Key(string $kid): array
    {
        $key = openssl_pkey_new(['private_key_type' => OPENSSL_KEYTYPE_EC, 'curve_name' => 'prime256v1']);
        $ec = openssl_pkey_get_details($key)['ec'];
        $pad = fn (string $n) => str_pad($n, 32, "\0", STR_PAD_LEFT);
        return ['private' => $key, 'jwk' => ['kty' => 'EC', 'crv' => 'P-256', 'x' => self::b64($pad($ec['x'])),
                'y' => self::b64($pad($ec['y'])), 'kid' => $kid, 'alg' => 'ES256', 'use' => 'sig']];
    }

    /** A fresh Ed25519 key: ['private' => 64-byte secret key, 'jwk' => public JWK]. */
    public static function eddsaKey(string $kid): array
    {
        $pair = sodium_crypto_sign_keypair();
        return ['private' => sodium_crypto_sign_secretkey($pair), 'jwk' => ['kty' => 'OKP', 'crv' => 'Ed25519',
                'x' => self::b64(sodium_crypto_sign_publickey($pair)), 'kid' => $kid, 'alg' => 'EdDSA', 'use' => 'sig']];
    }

    /** The P-256 public key as PEM (the bytes an HS256 confusion attack uses as its secret). */
    public static function publicPem(array $key): string
    {
        return openssl_pkey_get_details($key['private'])['key'];
    }

    /** A published P-256 JWK as PEM: the public bytes a confusion attacker has. */
    public static function pemOfJwk(array $jwk): string
    {
        $point = "\x04" . base64_decode(strtr($jwk['x'], '-_', '+/')) . base64_decode(strtr($jwk['y'], '-_', '+/'));
        // SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING point }
        $der = hex2bin('3059301306072a8648ce3d020106082a8648ce3d030107034200') . $point;
        return "-----BEGIN PUBLIC KEY-----\n" . chunk_split(base64_encode($der), 64, "\n") . "-----END PUBLIC KEY-----\n";
    }

    /** header.payload signed with $key by the algorithm of its JWK (the header is taken as given). */
    public static function sign(array $header, array $claims, array $key): string
    {
        $input = self::b64(json_encode($header)) . '.' . self::b64(json_encode($claims));
        if ($key['jwk']['kty'] === 'OKP') {
            return $input . '.' . self::b64(sodium_crypto_sign_detached($input, $key['private']));
        }
        openssl_sign($input, $der, $key['private'], OPENSSL_ALGO_SHA256);
        return $input . '.' . self::b64(self::rawSignature($der));
    }

    /** header.payload with the given signature bytes. */
    public static function withSignature(array $header, array $claims, string $signature): string
    {
        return self::b64(json_encode($header)) . '.' . self::b64(json_encode($claims)) . '.' . self::b64($signature);
    }

    /** An HS256 JWT with $secret as the HMAC key. */
    public static function hs256(array $header, array $claims, string $secret): string
    {
        $input = self::b64(json_encode($header)) . '.' . self::b64(json_encode($claims));
        return $input . '.' . self::b64(hash_hmac('sha256', $input, $secret, true));
    }

    /** DER SEQUENCE { INTEGER r, INTEGER s } → r||s, 32 bytes each. */
    public static function rawSignature(string $der): string
    {
        $raw = '';
        $at = 2;  // 0x30, length (short form for P-256)
        for ($i = 0; $i < 2; $i++) {
            $len = ord($der[$at + 1]);
            $raw .= str_pad(ltrim(substr($der, $at + 2, $len), "\0"), 32, "\0", STR_PAD_LEFT);
            $at += 2 + $len;
        }
        return $raw;
    }
}
