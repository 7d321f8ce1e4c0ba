<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * One public signing key of a JWKS (RFC 7517), ready to verify: a P-256 key
 * (ES256, through ext-openssl) or an Ed25519 key (EdDSA, through
 * ext-sodium). The algorithm comes from the key's own `kty`/`crv` (and its
 * `alg`, which must agree), never from a token. Immutable.
 */
final class Jwk
{
    public const ES256 = 'ES256';
    public const EDDSA = 'EdDSA';

    /** DER SubjectPublicKeyInfo prefix of an uncompressed P-256 point (RFC 5480). */
    private const P256_SPKI_PREFIX = '3059301306072a8648ce3d020106082a8648ce3d030107034200';

    /** @param \OpenSSLAsymmetricKey|string $key the OpenSSL key (ES256) or the 32 raw bytes (EdDSA) */
    private function __construct(
        private string $kid,
        private string $alg,
        private \OpenSSLAsymmetricKey|string $key,
    ) {
    }

    /**
     * The key of one `keys` entry, or null when it is not a signing key this
     * client can use: no `kid`, `use` other than `sig`, a `kty`/`crv` other
     * than EC/P-256 and OKP/Ed25519, an `alg` that disagrees with them,
     * coordinates of the wrong length or a point not on the curve.
     */
    public static function fromArray(array $jwk): ?self
    {
        $kid = $jwk['kid'] ?? null;
        if (!is_string($kid) || $kid === '' || (isset($jwk['use']) && $jwk['use'] !== 'sig')) {
            return null;
        }
        $alg = match ([$jwk['kty'] ?? null, $jwk['crv'] ?? null]) {
            ['EC', 'P-256'] => self::ES256,
            ['OKP', 'Ed25519'] => self::EDDSA,
            default => null,
        };
        if ($alg === null || (isset($jwk['alg']) && $jwk['alg'] !== $alg)) {
            return null;
        }
        $x = is_string($jwk['x'] ?? null) ? Base64Url::decode($jwk['x']) : null;
        if ($x === null || strlen($x) !== 32) {
            return null;
        }
        if ($alg === self::EDDSA) {
            return new self($kid, $alg, $x);
        }
        $y = is_string($jwk['y'] ?? null) ? Base64Url::decode($jwk['y']) : null;
        if ($y === null || strlen($y) !== 32) {
            return null;
        }
        $der = hex2bin(self::P256_SPKI_PREFIX) . "\x04" . $x . $y;
        $pem = "-----BEGIN PUBLIC KEY-----\n" . chunk_split(base64_encode($der), 64, "\n") . "-----END PUBLIC KEY-----\n";
        $key = openssl_pkey_get_public($pem);  // false for a point off the curve
        self::clearOpenSslErrors();
        return $key === false ? null : new self($kid, $alg, $key);
    }

    public function kid(): string
    {
        return $this->kid;
    }

    /** ES256 or EdDSA: the only algorithm a signature by this key may claim. */
    public function alg(): string
    {
        return $this->alg;
    }

    /** True when $signature (the JWS's raw bytes) signs $signingInput with this key. */
    public function verify(string $signingInput, string $signature): bool
    {
        if (strlen($signature) !== 64) {  // ES256: r||s of 32 bytes each; Ed25519: R||S
            return false;
        }
        if ($this->alg === self::EDDSA) {
            return sodium_crypto_sign_verify_detached($signature, $signingInput, $this->key);
        }
        $der = self::derSignature(substr($signature, 0, 32), substr($signature, 32));
        if ($der === null) {
            return false;
        }
        $ok = openssl_verify($signingInput, $der, $this->key, OPENSSL_ALGO_SHA256);
        self::clearOpenSslErrors();
        return $ok === 1;
    }

    /**
     * JWS's raw r||s as the DER SEQUENCE of two INTEGERs that OpenSSL wants
     * (RFC 7518 §3.4); null when r or s is zero, which no valid signature has.
     */
    private static function derSignature(string $r, string $s): ?string
    {
        $ints = '';
        foreach ([$r, $s] as $half) {
            $half = ltrim($half, "\x00");
            if ($half === '') {
                return null;
            }
            if (ord($half[0]) & 0x80) {
                $half = "\x00" . $half;  // keep the INTEGER positive
            }
            $ints .= "\x02" . chr(strlen($half)) . $half;
        }
        return "\x30" . chr(strlen($ints)) . $ints;  // at most 70 bytes: short-form lengths
    }

    /** OpenSSL keeps failures in a per-thread queue; a later call must not see ours. */
    private static function clearOpenSslErrors(): void
    {
        while (openssl_error_string() !== false) {
        }
    }
}
