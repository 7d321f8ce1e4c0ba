<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\Client;
use Svc\Client\SecondFactorRequiredException;
use Svc\Client\UnauthorizedException;

require_once __DIR__ . '/Stack.php';

/**
 * login() of a user with a second factor throws SecondFactorRequiredException
 * (mfaToken(), methods()); verifySecondFactor() finishes the login. Against
 * the stack ctest started; every TOTP code from Debian's oathtool.
 */
final class SecondFactorTest extends TestCase
{
    private const PASSWORD = 'Php@Mfa2026';
    private static array $env = [];

    public static function setUpBeforeClass(): void
    {
        $dir = getenv('SVC_STACK_DIR') ?: '';
        if ($dir === '' || !is_file($dir . '/env')) {
            self::fail('no running stack: SVC_STACK_DIR has no env file (ctest starts it via stack.up)');
        }
        foreach (file($dir . '/env', FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
            [$k, $v] = array_pad(explode('=', $line, 2), 2, '');
            self::$env[$k] = $v;
        }
    }

    private static function base(): string
    {
        return 'http://127.0.0.1:' . self::$env['SVC_HTTP_PORT'];
    }

    private static function runCommand(array $cmd, string $stdin = ''): string
    {
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fwrite($pipes[0], $stdin);
        fclose($pipes[0]);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        self::assertSame(0, proc_close($proc), implode(' ', $cmd) . ': ' . $err);
        return trim($out);
    }

    private static function totp(string $secret, int $step): string
    {
        return self::runCommand(['oathtool', '--totp', '-b', '--now', '@' . ($step * 30 + 1), $secret]);
    }

    /** A raw POST with a bearer token (the enrolment endpoints); returns [status, body]. */
    private static function postBearer(string $path, string $token, array $body): array
    {
        return Stack::post($path, $body, ['Authorization: Bearer ' . $token]);
    }

    public function testLoginThrowsSecondFactorRequiredAndVerifyFinishesIt(): void
    {
        // Inside one 30 s step with room to spare (a wall-clock position, not a synchronisation).
        while (fmod(microtime(true), 30.0) > 18.0) {
            usleep(200000);
        }
        $email = sprintf('php-mfa.%d.%s@example.com', getmypid(), bin2hex(random_bytes(4)));
        self::runCommand([self::$env['SVC_BIN_DIR'] . '/svc-admin', '--config', self::$env['SVC_CONFIG'], 'user', 'create',
                   '--email', $email, '--verified'], self::PASSWORD . "\n");
        $client = new Client(self::base());
        $token = $client->login($email, self::PASSWORD);
        [$status, $setup] = self::postBearer('/auth/mfa/totp/setup', $token['account_token'], []);
        self::assertSame(200, $status);
        $step = intdiv(time(), 30);
        [$status, $confirmed] = self::postBearer('/auth/mfa/totp/confirm', $token['account_token'],
                                                 ['code' => self::totp($setup['secret'], $step - 1)]);
        self::assertSame(200, $status, json_encode($confirmed));
        self::assertCount(10, $confirmed['recovery_codes']);

        try {
            $client->login($email, 'Wrong@Pass2026');
            self::fail('a wrong password logged in');
        } catch (UnauthorizedException $e) {
            self::assertSame('Invalid credentials', $e->getMessage());
        }
        try {
            $client->login($email, self::PASSWORD);
            self::fail('no second factor was asked for');
        } catch (SecondFactorRequiredException $e) {
            self::assertSame(401, $e->httpStatus());
            self::assertSame('Second factor required', $e->getMessage());
            self::assertSame(['totp', 'recovery_code'], $e->methods());
            $session = $client->verifySecondFactor($e->mfaToken(), self::totp($setup['secret'], $step));
            self::assertSame($email, $session['user']['email']);
            self::assertSame($session['access_token'], $client->tokens()['access_token']);
        }
    }
}
