<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * Verifies svc access tokens (RFC 9068 JWTs signed with ES256 or EdDSA)
 * with the published keys only: the checklist of docs/api.md
 * ("Verifying access tokens"), in this order, refusing at the first failure
 * with an InvalidTokenException naming it:
 *   three base64url parts, a JSON object header; `typ` `at+jwt`; `alg`
 *   ES256 or EdDSA (so `none` and every HS* are refused before any key is
 *   looked at); `kid` of a published key; `alg` equal to that key's
 *   algorithm (taken from the key, never from the token); the signature;
 *   then a JSON object payload with `iss` = the issuer, `aud` (a string or
 *   a list) holding the audience, `exp` in the future, `nbf` and `iat` not
 *   in the future, `sub` a non-empty string, and `tbl` = the table when one
 *   is expected. The leeway (0-60 s) applies to the three times only.
 * Refresh and reset tokens fail at `typ` (and could not pass the signature).
 *
 * Not thread-safe (its JwksCache is not).
 */
final class AccessTokenVerifier
{
    public const MAX_LEEWAY = 60;

    private JwksCache $keys;
    private string $issuer;
    private string $audience;
    private ?string $table;
    private int $leeway;
    /** @var callable(): int */
    private $clock;

    /**
     * @param string $issuer the exact `iss` of svc's tokens (`[tokens] issuer`)
     * @param string $audience your site's audience (`svc-admin site show`; default https://<site domain>)
     * @param ?string $table the `tbl` to require (a backend serving one user table of several), or null
     * @param int $leeway seconds of clock difference allowed on exp/nbf/iat, 0 to MAX_LEEWAY
     * @param ?callable(): int $clock Unix time; default time()
     * @throws \InvalidArgumentException for an empty issuer or audience, or a leeway out of range
     */
    public function __construct(JwksCache $keys, string $issuer, string $audience, ?string $table = null,
                                int $leeway = 30, ?callable $clock = null)
    {
        if ($issuer === '' || $audience === '') {
            throw new \InvalidArgumentException('verifying access tokens needs the issuer and your site\'s audience');
        }
        if ($leeway < 0 || $leeway > self::MAX_LEEWAY) {
            throw new \InvalidArgumentException('leeway must be 0 to ' . self::MAX_LEEWAY . ' seconds');
        }
        $this->keys = $keys;
        $this->issuer = $issuer;
        $this->audience = $audience;
        $this->table = $table;
        $this->leeway = $leeway;
        $this->clock = $clock ?? static fn (): int => time();
    }

    /**
     * The token's claims when every check passes.
     * @throws InvalidTokenException naming the first check that failed
     * @throws TransportException|ApiException when the key set could not be fetched
     */
    public function verify(string $jwt): array
    {
        $parts = explode('.', $jwt);
        if (count($parts) !== 3) {
            throw self::refuse(InvalidTokenException::REASON_MALFORMED, 'Token is not three dot-separated parts');
        }
        $header = self::jsonPart($parts[0], 'header');
        $typ = $header['typ'] ?? null;
        if (!is_string($typ) || strcasecmp($typ, 'at+jwt') !== 0) {
            throw self::refuse(InvalidTokenException::REASON_TYPE, 'Token typ is not at+jwt');
        }
        $alg = $header['alg'] ?? null;
        if ($alg !== Jwk::ES256 && $alg !== Jwk::EDDSA) {
            throw self::refuse(InvalidTokenException::REASON_ALGORITHM, 'Token alg is not ES256 or EdDSA');
        }
        $kid = $header['kid'] ?? null;
        $key = is_string($kid) && $kid !== '' ? $this->keys->key($kid) : null;
        if ($key === null) {
            throw self::refuse(InvalidTokenException::REASON_UNKNOWN_KEY, 'Token kid names no published key');
        }
        if ($alg !== $key->alg()) {
            throw self::refuse(InvalidTokenException::REASON_ALGORITHM, 'Token alg differs from its key\'s');
        }
        $signature = Base64Url::decode($parts[2]);
        if ($signature === null || !$key->verify($parts[0] . '.' . $parts[1], $signature)) {
            throw self::refuse(InvalidTokenException::REASON_SIGNATURE, 'Token signature does not verify');
        }
        $claims = self::jsonPart($parts[1], 'payload');
        $this->checkClaims($claims);
        return $claims;
    }

    private function checkClaims(array $claims): void
    {
        if (($claims['iss'] ?? null) !== $this->issuer) {
            throw self::refuse(InvalidTokenException::REASON_ISSUER, 'Token iss is not the expected issuer');
        }
        $aud = $claims['aud'] ?? null;
        $audiences = is_array($aud) && array_is_list($aud) ? $aud : [$aud];
        if (!in_array($this->audience, $audiences, true)) {
            throw self::refuse(InvalidTokenException::REASON_AUDIENCE, 'Token aud is not this site\'s audience');
        }
        $now = ($this->clock)();
        $exp = $claims['exp'] ?? null;
        if (!is_int($exp) && !is_float($exp)) {
            throw self::refuse(InvalidTokenException::REASON_CLAIMS, 'Token has no numeric exp');
        }
        if ($now - $this->leeway >= $exp) {
            throw self::refuse(InvalidTokenException::REASON_EXPIRED, 'Token has expired');
        }
        foreach (['nbf', 'iat'] as $name) {
            $time = $claims[$name] ?? null;
            if ($time !== null && !is_int($time) && !is_float($time)) {
                throw self::refuse(InvalidTokenException::REASON_CLAIMS, 'Token ' . $name . ' is not numeric');
            }
            if ($time !== null && $time > $now + $this->leeway) {
                throw self::refuse(InvalidTokenException::REASON_NOT_YET_VALID, 'Token ' . $name . ' is in the future');
            }
        }
        $sub = $claims['sub'] ?? null;
        if (!is_string($sub) || $sub === '') {
            throw self::refuse(InvalidTokenException::REASON_CLAIMS, 'Token has no sub');
        }
        if ($this->table !== null && ($claims['tbl'] ?? null) !== $this->table) {
            throw self::refuse(InvalidTokenException::REASON_TABLE, 'Token tbl is not the expected table');
        }
    }

    /** A base64url part holding a JSON object, decoded. */
    private static function jsonPart(string $part, string $what): array
    {
        $json = Base64Url::decode($part);
        $value = $json === null ? null : json_decode($json, true, 32);
        if (!is_array($value) || !str_starts_with(ltrim($json), '{')) {
            throw self::refuse(InvalidTokenException::REASON_MALFORMED, 'Token ' . $what . ' is not a JSON object');
        }
        return $value;
    }

    private static function refuse(string $reason, string $message): InvalidTokenException
    {
        return new InvalidTokenException($reason, $message);
    }
}
