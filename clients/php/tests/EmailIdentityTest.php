<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\Client;
use Svc\Client\EmailNotVerifiedException;
use Svc\Client\UnauthorizedException;

require_once __DIR__ . '/Stack.php';

/**
 * E-mail as identity through the client, against the stack ctest started:
 * emailCode() + signInWithEmailCode() with the code read from the mail the
 * SMTP sink received; on a site with `site set --verify-email`, login()
 * throws EmailNotVerifiedException until verifyEmail() spends the token of
 * the mailed link, and resendVerification() answers like for anyone.
 */
final class EmailIdentityTest extends TestCase
{
    private const PASSWORD = 'Engine@1843';

    private static function uniqueEmail(string $prefix): string
    {
        return sprintf('%s.%d.%s@example.com', $prefix, getmypid(), bin2hex(random_bytes(4)));
    }

    private static function claims(string $jwt): array
    {
        $part = explode('.', $jwt)[1];
        return json_decode((string) base64_decode(strtr($part, '-_', '+/')), true);
    }

    /** The code of the sign-in mail the sink received for $email. */
    private static function codeMailedTo(string $email): string
    {
        return Stack::waitFor(function () use ($email) {
            foreach (glob(Stack::env()['SVC_STACK_DIR'] . '/mail/*.eml') as $path) {
                $text = quoted_printable_decode((string) file_get_contents($path));
                if (stripos($text, $email) !== false && preg_match('#<strong>(\d{6})</strong>#', $text, $m)) {
                    return $m[1];
                }
            }
            return null;
        }, 'sign-in code mail to ' . $email);
    }

    public function testSignInWithACodeByMail(): void
    {
        $email = self::uniqueEmail('php-ecode');
        Stack::admin(['user', 'create', '--email', $email], self::PASSWORD . "\n");
        $svc = new Client(Stack::base(), ['siteId' => 1]);
        $this->assertSame('A sign-in code has been sent to ' . $email, $svc->emailCode($email)['message']);
        $code = self::codeMailedTo($email);
        try {
            $svc->signInWithEmailCode($email, $code === '000000' ? '000001' : '000000');
            $this->fail('a wrong code signed in');
        } catch (UnauthorizedException $e) {
            $this->assertSame('Invalid or expired code', $e->getMessage());
        }
        $token = $svc->signInWithEmailCode($email, $code);
        $this->assertSame($email, $token['user']['email']);
        $this->assertSame($token['access_token'], $svc->tokens()['access_token']);
        $claims = self::claims($token['access_token']);
        $this->assertSame(['otp'], $claims['amr']);
        $this->assertTrue($claims['email_verified']);
    }

    public function testAVerifyEmailSiteRefusesUntilTheLinkIsUsed(): void
    {
        $site = (int) Stack::admin(['site', 'create', '--user-pool', 'default', '--name', 'PHP verify', '--domain', 'php-verify.example',
                                    '--email-from', 'no-reply@php-verify.example', '--verify-email']);
        $email = self::uniqueEmail('php-verify');
        $svc = new Client(Stack::base(), ['appId' => $site]);
        $this->assertFalse(self::claims($svc->signUp($email, self::PASSWORD)['access_token'])['email_verified']);
        try {
            $svc->login($email, self::PASSWORD);
            $this->fail('an unverified address logged in');
        } catch (EmailNotVerifiedException $e) {
            $this->assertSame(403, $e->httpStatus());
            $this->assertSame('Email not verified', $e->getMessage());
        }
        $unknown = self::uniqueEmail('php-verify-unknown');
        $this->assertSame('A verification e-mail has been sent to ' . $unknown,
                          $svc->resendVerification($unknown)['message']);

        $this->assertSame('Email verified', $svc->verifyEmail(Stack::resetTokenMailedTo($email))['message']);
        $this->assertTrue(self::claims($svc->login($email, self::PASSWORD)['access_token'])['email_verified']);
    }
}
