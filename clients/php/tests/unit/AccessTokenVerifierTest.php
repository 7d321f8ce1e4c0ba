<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

require_once __DIR__ . '/../TokenForge.php';

use PHPUnit\Framework\TestCase;
use Svc\Client\AccessTokenVerifier;
use Svc\Client\InvalidTokenException;
use Svc\Client\JwksCache;

/**
 * AccessTokenVerifier without a server: keys made here, the key set handed
 * to JwksCache through its fetch seam, time from a fake clock.
 */
final class AccessTokenVerifierTest extends TestCase
{
    private const ISS = 'https://svc.example.test';
    private const AUD = 'https://shop.example.test';

    private int $now = 1_900_000_000;
    private array $ec;
    private array $ed;
    private array $published;
    private int $fetches = 0;

    protected function setUp(): void
    {
        $this->ec = TokenForge::es256Key('ec-1');
        $this->ed = TokenForge::eddsaKey('ed-1');
        $this->published = [$this->ec['jwk'], $this->ed['jwk']];
    }

    private function verifier(array $options = []): AccessTokenVerifier
    {
        $fetch = function (string $url): array {
            $this->fetches++;
            return [json_encode(['keys' => $this->published]), 300];
        };
        $clock = fn (): int => $this->now;
        return new AccessTokenVerifier(new JwksCache('https://svc.example.test/.well-known/jwks.json', null, $fetch, $clock),
                                       self::ISS, $options['audience'] ?? self::AUD, $options['table'] ?? null,
                                       $options['leeway'] ?? 30, $clock);
    }

    private function claims(array $over = []): array
    {
        return array_merge(['iss' => self::ISS, 'sub' => '42', 'aud' => self::AUD, 'client_id' => '7',
                            'iat' => $this->now - 5, 'exp' => $this->now + 3600, 'jti' => 'j1',
                            'auth_time' => $this->now - 5, 'amr' => ['pwd'], 'tbl' => 'svc_users', 'ver' => 1], $over);
    }

    private static function header(array $key, array $over = []): array
    {
        return array_merge(['alg' => $key['jwk']['alg'], 'typ' => 'at+jwt', 'kid' => $key['jwk']['kid']], $over);
    }

    private function assertRefused(string $reason, string $jwt, ?AccessTokenVerifier $verifier = null): void
    {
        try {
            ($verifier ?? $this->verifier())->verify($jwt);
            $this->fail('token accepted, expected refusal: ' . $reason);
        } catch (InvalidTokenException $e) {
            $this->assertSame($reason, $e->reason(), $e->getMessage());
            $this->assertSame(0, $e->httpStatus());
        }
    }

    public function testValidEs256AndEdDsaTokensReturnTheirClaims(): void
    {
        foreach ([$this->ec, $this->ed] as $key) {
            $claims = $this->claims();
            $this->assertSame($claims, $this->verifier()->verify(TokenForge::sign(self::header($key), $claims, $key)));
        }
    }

    public function testEs256SignaturesOfEveryShapeVerify(): void
    {
        // r and s with the high bit set need a 0x00 in DER, with leading
        // zero bytes they are shorter: sign until both shapes were seen.
        $verifier = $this->verifier();
        $seen = ['high' => false, 'short' => false];
        for ($i = 0; $i < 3000 && !($seen['high'] && $seen['short']); $i++) {
            $jwt = TokenForge::sign(self::header($this->ec), $this->claims(['jti' => (string) $i]), $this->ec);
            $raw = sodium_base642bin(explode('.', $jwt)[2], SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
            $seen['high'] = $seen['high'] || ord($raw[0]) >= 0x80 || ord($raw[32]) >= 0x80;
            $seen['short'] = $seen['short'] || $raw[0] === "\0" || $raw[32] === "\0";
            $this->assertSame((string) $i, $verifier->verify($jwt)['jti']);
        }
        $this->assertSame(['high' => true, 'short' => true], $seen);
    }

    public function testTypIsAtJwtInAnyCase(): void
    {
        $jwt = TokenForge::sign(self::header($this->ec, ['typ' => 'AT+JWT']), $this->claims(), $this->ec);
        $this->assertSame('42', $this->verifier()->verify($jwt)['sub']);
        $this->assertRefused('type', TokenForge::sign(self::header($this->ec, ['typ' => 'JWT']), $this->claims(), $this->ec));
        $header = self::header($this->ec);
        unset($header['typ']);
        $this->assertRefused('type', TokenForge::sign($header, $this->claims(), $this->ec));
    }

    public function testAudienceMustBeThisSites(): void
    {
        $other = $this->claims(['aud' => 'https://other.example.test']);
        $this->assertRefused('audience', TokenForge::sign(self::header($this->ec), $other, $this->ec));
        $list = $this->claims(['aud' => ['https://other.example.test', self::AUD]]);
        $this->assertSame($list['aud'], $this->verifier()->verify(TokenForge::sign(self::header($this->ed), $list, $this->ed))['aud']);
        foreach ([[], ['https://other.example.test'], null] as $aud) {
            $this->assertRefused('audience', TokenForge::sign(self::header($this->ec), $this->claims(['aud' => $aud]), $this->ec));
        }
        $noAud = $this->claims();
        unset($noAud['aud']);
        $this->assertRefused('audience', TokenForge::sign(self::header($this->ec), $noAud, $this->ec));
    }

    public function testExpiredWithinAndBeyondTheLeeway(): void
    {
        $jwt = TokenForge::sign(self::header($this->ec), $this->claims(['exp' => $this->now - 30]), $this->ec);
        $this->assertRefused('expired', $jwt);
        $this->assertRefused('expired', $jwt, $this->verifier(['leeway' => 30]));
        $this->assertSame('42', $this->verifier(['leeway' => 31])->verify($jwt)['sub']);
        $this->assertRefused('expired', TokenForge::sign(self::header($this->ec), $this->claims(['exp' => $this->now]), $this->ec),
                             $this->verifier(['leeway' => 0]));
        $noExp = $this->claims();
        unset($noExp['exp']);
        $this->assertRefused('claims', TokenForge::sign(self::header($this->ec), $noExp, $this->ec));
        $this->assertRefused('claims', TokenForge::sign(self::header($this->ec), $this->claims(['exp' => (string) ($this->now + 60)]), $this->ec));
    }

    public function testNotBeforeAndIssuedAtInTheFuture(): void
    {
        foreach (['nbf', 'iat'] as $claim) {
            $this->assertRefused('not_yet_valid', TokenForge::sign(self::header($this->ec), $this->claims([$claim => $this->now + 31]), $this->ec));
            $this->assertSame('42', $this->verifier()->verify(TokenForge::sign(self::header($this->ec), $this->claims([$claim => $this->now + 30]), $this->ec))['sub']);
        }
    }

    public function testIssuerSubjectAndTable(): void
    {
        $this->assertRefused('issuer', TokenForge::sign(self::header($this->ec), $this->claims(['iss' => 'https://evil.example.test']), $this->ec));
        $noSub = $this->claims();
        unset($noSub['sub']);
        $this->assertRefused('claims', TokenForge::sign(self::header($this->ec), $noSub, $this->ec));
        $this->assertRefused('claims', TokenForge::sign(self::header($this->ec), $this->claims(['sub' => 42]), $this->ec));
        $jwt = TokenForge::sign(self::header($this->ec), $this->claims(), $this->ec);
        $this->assertSame('svc_users', $this->verifier(['table' => 'svc_users'])->verify($jwt)['tbl']);
        $this->assertRefused('table', $jwt, $this->verifier(['table' => 'shop_customers']));
    }

    public function testAlgNoneIsRefused(): void
    {
        foreach (['none', 'None', 'NONE'] as $none) {
            $this->assertRefused('algorithm', TokenForge::withSignature(self::header($this->ec, ['alg' => $none]), $this->claims(), ''));
        }
        $this->assertSame(0, $this->fetches, 'alg none was refused before any key lookup');
    }

    public function testHs256SignedWithThePublicKeyIsRefused(): void
    {
        // The confusion attack: a verifier that takes alg from the token
        // would HMAC with the "key" it holds, the public key's bytes.
        $secrets = [TokenForge::publicPem($this->ec), json_encode($this->ec['jwk']), $this->ec['jwk']['x'],
                    sodium_base642bin($this->ed['jwk']['x'], SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING)];
        foreach ($secrets as $secret) {
            foreach (['HS256', 'HS384', 'HS512'] as $alg) {
                foreach ([$this->ec, $this->ed] as $key) {
                    $this->assertRefused('algorithm', TokenForge::hs256(self::header($key, ['alg' => $alg]), $this->claims(), $secret));
                }
            }
        }
        foreach (['RS256', 'ES384', 'PS256', 'Ed25519', ''] as $alg) {
            $this->assertRefused('algorithm', TokenForge::sign(self::header($this->ec, ['alg' => $alg]), $this->claims(), $this->ec));
        }
        $header = self::header($this->ec);
        unset($header['alg']);
        $this->assertRefused('algorithm', TokenForge::sign($header, $this->claims(), $this->ec));
    }

    public function testHeaderAlgMustBeTheKeysAlg(): void
    {
        // An EdDSA-signed token naming the EC key, and the reverse: the key's
        // kty/crv decide, whatever the header says.
        $this->assertRefused('algorithm', TokenForge::sign(self::header($this->ec, ['alg' => 'EdDSA']), $this->claims(), $this->ed));
        $this->assertRefused('algorithm', TokenForge::sign(self::header($this->ed, ['alg' => 'ES256']), $this->claims(), $this->ec));
        // A JWK whose alg disagrees with its kty/crv is no usable key at all.
        $this->published = [array_merge($this->ec['jwk'], ['alg' => 'EdDSA']), array_merge($this->ed['jwk'], ['use' => 'enc'])];
        $this->assertRefused('unknown_key', TokenForge::sign(self::header($this->ec), $this->claims(), $this->ec));
        $this->assertRefused('unknown_key', TokenForge::sign(self::header($this->ed), $this->claims(), $this->ed));
    }

    public function testUnknownKidRefetchesAtMostOnceAMinute(): void
    {
        $verifier = $this->verifier();
        $this->assertSame('42', $verifier->verify(TokenForge::sign(self::header($this->ec), $this->claims(), $this->ec))['sub']);
        $this->assertSame(1, $this->fetches);

        $new = TokenForge::es256Key('ec-2');
        $jwt = TokenForge::sign(self::header($new), $this->claims(), $new);
        $this->assertRefused('unknown_key', $jwt, $verifier);
        $this->assertSame(1, $this->fetches, 'the set fetched this second is not fetched again');
        $this->now += 59;
        $this->assertRefused('unknown_key', $jwt, $verifier);
        $this->assertRefused('unknown_key', TokenForge::sign(self::header($new, ['kid' => 'made-up']), $this->claims(), $new), $verifier);
        $this->assertSame(1, $this->fetches, 'no refetch within the minute');

        $this->published[] = $new['jwk'];  // svc rotated: the new key is published
        $this->now += 1;
        $this->assertSame('42', $verifier->verify($jwt)['sub']);
        $this->assertSame(2, $this->fetches);
        $this->assertRefused('unknown_key', TokenForge::sign(self::header($new, ['kid' => 'made-up']), $this->claims(), $new), $verifier);
        $this->assertSame(2, $this->fetches);

        $noKid = self::header($this->ec);
        unset($noKid['kid']);
        $this->assertRefused('unknown_key', TokenForge::sign($noKid, $this->claims(), $this->ec), $verifier);
        $this->assertRefused('unknown_key', TokenForge::sign(self::header($this->ec, ['kid' => 7]), $this->claims(), $this->ec), $verifier);
    }

    public function testTamperedTokensFailTheSignature(): void
    {
        foreach ([$this->ec, $this->ed] as $key) {
            [$h, $p, $s] = explode('.', TokenForge::sign(self::header($key), $this->claims(), $key));
            $forged = TokenForge::b64(json_encode($this->claims(['sub' => '1'])));
            $this->assertRefused('signature', "$h.$forged.$s");
            $other = explode('.', TokenForge::sign(self::header($key), $this->claims(['jti' => 'j2']), $key))[2];
            $this->assertRefused('signature', "$h.$p.$other");
            $raw = sodium_base642bin($s, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
            $raw[10] = chr(ord($raw[10]) ^ 1);
            $this->assertRefused('signature', "$h.$p." . TokenForge::b64($raw));
            foreach ([substr($raw, 0, 63), $raw . "\0", '', str_repeat("\0", 64)] as $bad) {
                $this->assertRefused('signature', "$h.$p." . TokenForge::b64($bad));
            }
            $this->assertRefused('signature', "$h.$p.$s=");   // padding: not base64url
            $this->assertRefused('signature', "$h.$p." . strtr($s, '-_', '+/') . '+');
        }
        // A valid DER signature instead of r||s (what a naive signer emits).
        $input = TokenForge::b64(json_encode(self::header($this->ec))) . '.' . TokenForge::b64(json_encode($this->claims()));
        openssl_sign($input, $der, $this->ec['private'], OPENSSL_ALGO_SHA256);
        $this->assertRefused('signature', $input . '.' . TokenForge::b64($der));
    }

    public function testMalformedTokens(): void
    {
        $valid = TokenForge::sign(self::header($this->ec), $this->claims(), $this->ec);
        [$h, $p, $s] = explode('.', $valid);
        foreach (['', '.', '..', 'abc', "$h.$p", "$h.$p.$s.$s", "$h..$s.", " $valid", "$valid\n"] as $jwt) {
            try {
                $this->verifier()->verify($jwt);
                $this->fail('accepted: ' . json_encode($jwt));
            } catch (InvalidTokenException $e) {
                $this->assertContains($e->reason(), ['malformed', 'signature'], json_encode($jwt));
            }
        }
        foreach (['not json', '[1,2]', '"at+jwt"', '{"alg":"ES256"', '', 'null'] as $json) {
            $this->assertRefused('malformed', TokenForge::b64($json) . ".$p.$s");
        }
        $this->assertRefused('malformed', "$h=.$p.$s");
        $this->assertRefused('type', 'e30.e30.');  // {} is an object, without typ
        // A signed payload that is not an object (signature checked first).
        $input = $h . '.' . TokenForge::b64('[1]');
        openssl_sign($input, $der, $this->ec['private'], OPENSSL_ALGO_SHA256);
        $this->assertRefused('malformed', $input . '.' . TokenForge::b64(TokenForge::rawSignature($der)));
    }

    public function testLeewayAndAudienceAreValidated(): void
    {
        foreach ([['leeway' => -1], ['leeway' => 61], ['audience' => '']] as $bad) {
            try {
                $this->verifier($bad);
                $this->fail('accepted ' . json_encode($bad));
            } catch (\InvalidArgumentException $e) {
                $this->assertNotSame('', $e->getMessage());
            }
        }
    }
}
