<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\ApiException;
use Svc\Client\Client;
use Svc\Client\ConflictException;
use Svc\Client\UnauthorizedException;
use Svc\Client\ValidationException;
use Svc\Client\WeakPasswordException;

require_once __DIR__ . '/Stack.php';

/**
 * The client against the stack ctest started (scripts/stack.sh up; its env
 * file in $SVC_STACK_DIR): real nginx, svc-fcgi, MariaDB and sinks.
 * Demo site 1 and demo user 1 (demo@example.com) are only read, never changed.
 */
final class ClientTest extends TestCase
{
    private static array $env = [];

    public static function setUpBeforeClass(): void
    {
        self::$env = Stack::env();
    }

    private static function base(): string
    {
        return Stack::base();
    }

    /** A client for demo site 1 with the stack's site key (when it has one). */
    private static function client(array $options = []): Client
    {
        return new Client(self::base(), $options + ['siteId' => 1, 'siteKey' => self::$env['SITE_KEY'] ?? '']);
    }

    private static function uniqueEmail(string $prefix): string
    {
        return sprintf('%s.%d.%s@example.com', $prefix, getmypid(), bin2hex(random_bytes(4)));
    }

    /** Runs svc-admin against the stack's configuration; returns its last output line. */
    private static function admin(array $args, string $stdin = ''): string
    {
        return Stack::admin($args, $stdin);
    }

    private static function waitFor(callable $find, string $what)
    {
        return Stack::waitFor($find, $what);
    }

    private static function resetTokenMailedTo(string $email): string
    {
        return Stack::resetTokenMailedTo($email);
    }

    /** The code of the SMS the sink received for $mobile. */
    private static function smsCodeSentTo(string $mobile): string
    {
        return self::waitFor(function () use ($mobile) {
            $log = self::$env['SVC_STACK_DIR'] . '/sms.log';
            foreach (is_file($log) ? file($log, FILE_IGNORE_NEW_LINES) : [] as $line) {
                $body = json_decode((string) (json_decode($line, true)['body'] ?? ''), true);
                if (is_array($body) && ($body['to'] ?? '') === $mobile && preg_match('/(\d{6})/', $body['text'] ?? '', $m)) {
                    return $m[1];
                }
            }
            return null;
        }, 'SMS to ' . $mobile);
    }

    public function testSignUpLoginRefreshAndSignOut(): void
    {
        $svc = self::client();
        $email = self::uniqueEmail('php');
        $token = $svc->signUp($email, 'Engine@1843', 'Ada', 'Lovelace');
        $this->assertSame(['id', 'email', 'firstName', 'lastName'], array_keys($token['user']));
        $this->assertSame($email, $token['user']['email']);

        $login = self::client()->login($email, 'Engine@1843');
        $this->assertSame('Ada', $login['user']['firstName']);
        $this->assertArrayHasKey('role', $login['user']);

        $before = $svc->tokens();
        // Every token carries a random jti: a renewed one differs within the same second too.
        $renewed = $svc->refresh();
        $this->assertSame($renewed['access_token'], $svc->tokens()['access_token']);
        $this->assertNotSame($before['refresh_token'], $svc->tokens()['refresh_token']);

        $svc->signOut();
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $svc->tokens());
    }

    public function testTypedExceptionsCarryStatusMessageAndErrors(): void
    {
        $svc = self::client();
        try {
            $svc->login('nobody.' . bin2hex(random_bytes(4)) . '@example.com', 'Wrong@12345');
            $this->fail('login of an unknown user succeeded');
        } catch (UnauthorizedException $e) {
            $this->assertSame([401, 'Failed', 'Invalid credentials'], [$e->httpStatus(), $e->apiStatus(), $e->getMessage()]);
        }
        try {
            $svc->login('not-an-address', 'x');
            $this->fail('an invalid login was accepted');
        } catch (ValidationException $e) {
            $this->assertSame(400, $e->httpStatus());
            $this->assertSame('Validation error', $e->getMessage());
            $this->assertContains('email', array_column($e->errors(), 'field'));
        }
        try {
            $svc->signUp(self::uniqueEmail('weak'), 'Analytical#1');
            $this->fail('a weak password was accepted');
        } catch (WeakPasswordException $e) {
            $this->assertSame('Password does not meet security requirements', $e->getMessage());
            $this->assertFalse($e->requirements()['hasSpecialChar']);
            $this->assertTrue($e->requirements()['minLength']);
        }
        try {
            $svc->signUp('demo@example.com', 'Engine@1843');
            $this->fail('a second demo@example.com was registered');
        } catch (ConflictException $e) {
            $this->assertSame([409, 'User with this email already exists'], [$e->httpStatus(), $e->getMessage()]);
        }
    }

    public function testPasswordResetByMail(): void
    {
        $svc = self::client();
        $email = self::uniqueEmail('phpreset');
        $svc->signUp($email, 'Engine@1843');
        $reply = $svc->requestPass($email);
        $this->assertSame('An e-mail with reset instructions has been sent to ' . $email, $reply['message']);

        $token = self::resetTokenMailedTo($email);
        try {
            $svc->resetPass($token, 'Engine@1852', 'Engine@1853');
            $this->fail('different passwords were accepted');
        } catch (ValidationException $e) {
            $this->assertSame([['field' => 'confirmPassword', 'message' => 'Passwords do not match']], $e->errors());
        }
        $this->assertSame('Password reset successfully', $svc->resetPass($token, 'Engine@1852')['message']);
        $this->assertSame($email, self::client()->login($email, 'Engine@1852')['user']['email']);
    }

    public function testUserLookupAndSmsCode(): void
    {
        $mobile = sprintf('+1555%07d', random_int(0, 9999999));
        $email = self::uniqueEmail('phpsms');
        $uid = (int) self::admin(['user', 'create', '--email', $email, '--mobile', $mobile], "Pass@1234\n");
        $id = self::admin(['mint-user-id', '--user', (string) $uid]);
        $svc = self::client();

        $this->assertSame(['status' => 'Success', 'email' => $email, 'role' => 'user'], $svc->userEmail($id));
        $this->assertSame('SMS code sent successfully', $svc->userSmsCode($id)['message']);
        $code = self::smsCodeSentTo($mobile);
        $this->assertSame('SMS code verified', $svc->verifySmsCode($id, $code)['message']);
        try {
            $svc->verifySmsCode($id, $code);
            $this->fail('a spent code was accepted twice');
        } catch (ApiException $e) {
            $this->assertSame([400, 'Code expired or invalid', 0],
                              [$e->httpStatus(), $e->getMessage(), $e->body()['attempts_left']]);
        }
    }

    public function testFolderLimitsRenewAnExpiredAccessTokenOnce(): void
    {
        $svc = self::client();
        $svc->login('demo@example.com', 'Demo@2026!');
        $this->assertSame([1, 2], $svc->getFolderLimits(1));

        // An access token whose exp has passed (its signature is never
        // checked: the client renews it before sending).
        $claims = rtrim(strtr(base64_encode(json_encode(['sub' => '1', 'exp' => time() - 60])), '+/', '-_'), '=');
        $expired = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' . $claims . '.c2lnbmF0dXJl';
        $svc->setTokens($expired, $svc->tokens()['refresh_token']);
        $this->assertSame([1, 2], $svc->getFolderLimits(1));
        $this->assertNotSame($expired, $svc->tokens()['access_token']);

        // A refresh token that does not work: the renewal fails once, loudly.
        $svc->setTokens($expired, 'not.a.token');
        try {
            $svc->getFolderLimits(1);
            $this->fail('a bad refresh token was accepted');
        } catch (ApiException $e) {
            $this->assertSame([400, 'Invalid token format'], [$e->httpStatus(), $e->getMessage()]);
        }
    }

    public function testMessagingSendsTheSiteHeaders(): void
    {
        $svc = self::client();
        $this->assertSame(['status' => 'Success'],
                          $svc->notification('welcome-email', ['email' => self::uniqueEmail('phpmsg'), 'data' => ['name' => 'Ada']]));
        try {
            $svc->notification('no-such-event', ['email' => self::uniqueEmail('phpmsg')]);
            $this->fail('an unknown event was queued');
        } catch (ApiException $e) {
            $this->assertSame([200, 'Failed', 'Notification event not found or disabled'],
                              [$e->httpStatus(), $e->apiStatus(), $e->getMessage()]);
        }
        try {
            $svc->sendPush(self::admin(['mint-customer-id', '--customer', '1']), 'Your order shipped', 'Hi', ['order' => 42]);
            $this->fail('a push to a customer without subscription succeeded');
        } catch (ApiException $e) {
            $this->assertSame([200, 'Error'], [$e->httpStatus(), $e->apiStatus()]);
        }
        try {
            (new Client(self::base(), ['siteId' => 999999]))->notification('welcome-email', ['email' => 'x@example.com']);
            $this->fail('an unknown site was accepted');
        } catch (UnauthorizedException $e) {
            $this->assertSame([401, 'Error', 'Unauthorized'], [$e->httpStatus(), $e->apiStatus(), $e->getMessage()]);
        }
        if ((self::$env['SITE_KEY'] ?? '') !== '') {
            $this->expectException(UnauthorizedException::class);
            self::client(['siteKey' => 'wrong-key'])->notification('welcome-email', ['email' => 'x@example.com']);
        }
    }
}
