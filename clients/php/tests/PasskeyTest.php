<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\ApiException;
use Svc\Client\Base64Url;
use Svc\Client\Client;
use Svc\Client\NotFoundException;
use Svc\Client\UnauthorizedException;
use Svc\Client\ValidationException;

/**
 * The passkey calls of the client, as a PHP server relaying its pages'
 * ceremonies would make them, against the stack ctest started. The
 * "browser" here is a software ES256 authenticator (openssl), which builds
 * the RegistrationResponseJSON and AuthenticationResponseJSON a browser's
 * credential.toJSON() gives: WebAuthn's own checks are proven with real
 * Chromium in tests/integration/test_passkeys.py.
 */
final class PasskeyTest extends TestCase
{
    private const PASSWORD = 'Php@Passkey2026';
    private const ORIGIN = 'https://php-passkey.example';

    private static function site(): int
    {
        $out = Stack::adminOutput(['site', 'create', '--user-pool', 'default', '--name', 'PHP passkeys', '--domain', 'php-passkey.example',
                                   '--api-key', 'none', '--rp-id', 'php-passkey.example']);
        $lines = array_values(array_filter(explode("\n", trim($out))));
        return (int) end($lines);
    }

    private static function cbor(string $bytes): string
    {
        $n = strlen($bytes);
        return ($n < 24 ? chr(0x40 | $n) : ($n < 256 ? "\x58" . chr($n) : "\x59" . pack('n', $n))) . $bytes;
    }

    /** A P-256 key pair and its COSE_Key (kty 2, alg -7, crv 1, x, y). */
    private static function newKey(): array
    {
        $key = openssl_pkey_new(['private_key_type' => OPENSSL_KEYTYPE_EC, 'curve_name' => 'prime256v1']);
        $ec = openssl_pkey_get_details($key)['ec'];
        $x = str_pad($ec['x'], 32, "\0", STR_PAD_LEFT);
        $y = str_pad($ec['y'], 32, "\0", STR_PAD_LEFT);
        $cose = "\xa5\x01\x02\x03\x26\x20\x01\x21" . self::cbor($x) . "\x22" . self::cbor($y);
        return [$key, $cose];
    }

    private static function clientData(string $type, array $options): string
    {
        return json_encode(['type' => $type, 'challenge' => $options['challenge'], 'origin' => self::ORIGIN,
                            'crossOrigin' => false], JSON_UNESCAPED_SLASHES);
    }

    /** RegistrationResponseJSON of a new credential (flags UP|UV|AT, counter 1, attestation "none"). */
    private static function register(array $options, string $credentialId, string $cose): array
    {
        $authData = hash('sha256', $options['rp']['id'], true) . "\x45" . pack('N', 1) . str_repeat("\0", 16)
            . pack('n', strlen($credentialId)) . $credentialId . $cose;
        $attestation = "\xa3\x63fmt\x64none\x67attStmt\xa0\x68authData" . self::cbor($authData);
        return ['id' => Base64Url::encode($credentialId), 'rawId' => Base64Url::encode($credentialId),
                'type' => 'public-key', 'clientExtensionResults' => (object) [],
                'response' => ['clientDataJSON' => Base64Url::encode(self::clientData('webauthn.create', $options)),
                               'attestationObject' => Base64Url::encode($attestation),
                               'transports' => ['internal']]];
    }

    /** AuthenticationResponseJSON signed with $key (flags UP|UV, counter $count). */
    private static function assert(array $options, string $rpId, string $credentialId, $key, int $count): array
    {
        $authData = hash('sha256', $rpId, true) . "\x05" . pack('N', $count);
        $clientData = self::clientData('webauthn.get', $options);
        openssl_sign($authData . hash('sha256', $clientData, true), $signature, $key, OPENSSL_ALGO_SHA256);
        return ['id' => Base64Url::encode($credentialId), 'rawId' => Base64Url::encode($credentialId),
                'type' => 'public-key', 'clientExtensionResults' => (object) [],
                'response' => ['clientDataJSON' => Base64Url::encode($clientData),
                               'authenticatorData' => Base64Url::encode($authData),
                               'signature' => Base64Url::encode($signature)]];
    }

    public function testRegisterSignInListAndDelete(): void
    {
        $site = self::site();
        $email = sprintf('php-passkey.%d.%s@example.com', getmypid(), bin2hex(random_bytes(4)));
        Stack::admin(['user', 'create', '--email', $email, '--verified'], self::PASSWORD . "\n");
        $server = new Client(Stack::base(), ['appId' => $site]);
        $server->login($email, self::PASSWORD);

        $start = $server->passkeyRegisterOptions();
        $this->assertSame('php-passkey.example', $start['options']['rp']['id']);
        $this->assertSame('required', $start['options']['authenticatorSelection']['userVerification']);
        [$key, $cose] = self::newKey();
        $credentialId = random_bytes(16);
        $passkey = $server->passkeyRegister($start['challenge_token'],
                                            self::register($start['options'], $credentialId, $cose), 'PHP key');
        $this->assertSame('PHP key', $passkey['name']);
        $this->assertNull($passkey['last_used_at']);

        $visitor = new Client(Stack::base(), ['appId' => $site]);
        $login = $visitor->passkeyLoginOptions($email);
        $this->assertSame([], $login['options']['allowCredentials']);
        $token = $visitor->passkeyLogin($login['challenge_token'],
                                        self::assert($login['options'], 'php-passkey.example', $credentialId, $key, 2));
        $this->assertSame($email, $token['user']['email']);
        $this->assertSame($token['access_token'], $visitor->tokens()['access_token']);

        // The same counter again: a clone, refused.
        $login = $visitor->passkeyLoginOptions();
        try {
            $visitor->passkeyLogin($login['challenge_token'],
                                   self::assert($login['options'], 'php-passkey.example', $credentialId, $key, 2));
            $this->fail('a sign count that did not grow was accepted');
        } catch (UnauthorizedException $e) {
            $this->assertSame('Passkey not accepted', $e->getMessage());
        }

        $list = $server->passkeys();
        $this->assertCount(1, $list);
        $this->assertSame($passkey['id'], $list[0]['id']);
        $this->assertIsInt($list[0]['last_used_at']);
        $renamed = $server->renamePasskey($passkey['id'], 'Work laptop');
        $this->assertSame(['id' => $passkey['id'], 'name' => 'Work laptop'],
                          ['id' => $renamed['id'], 'name' => $renamed['name']]);
        $this->assertSame('Work laptop', $server->passkeys()[0]['name']);
        try {
            $server->renamePasskey($passkey['id'], '');
            $this->fail('an empty name was accepted');
        } catch (ValidationException $e) {
            $this->assertSame('name', $e->errors()[0]['field']);
        }
        $server->deletePasskey($passkey['id']);
        $this->assertSame([], $server->passkeys());
        try {
            $server->renamePasskey($passkey['id'], 'Gone');
            $this->fail('a deleted passkey was renamed');
        } catch (NotFoundException $e) {
            $this->assertSame('Passkey not found', $e->getMessage());
        }
    }

    public function testSiteWithoutRpIdIsRefused(): void
    {
        $client = new Client(Stack::base(), ['appId' => 1]);
        try {
            $client->passkeyLoginOptions();
            $this->fail('options for a site without an RP id');
        } catch (ApiException $e) {
            $this->assertSame(400, $e->httpStatus());
            $this->assertSame('Passkeys are not configured for this site: rp_id is not set', $e->getMessage());
        }
    }
}
