<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\Client;
use Svc\Client\ConflictException;
use Svc\Client\UnauthorizedException;

/**
 * The account self-service calls (issue 38) against the stack ctest started:
 * change the password, refuse a taken address, export, delete.
 */
final class AccountSelfServiceTest extends TestCase
{
    private const PASSWORD = 'Php@Account2026';
    private const NEW_PASSWORD = 'Php@Account2027';

    public function testChangeExportAndDelete(): void
    {
        $email = 'php-account-' . bin2hex(random_bytes(6)) . '@example.com';
        $other = 'php-account-' . bin2hex(random_bytes(6)) . '@example.com';
        Stack::admin(['user', 'create', '--email', $email, '--verified'], self::PASSWORD . "\n");
        Stack::admin(['user', 'create', '--email', $other], self::PASSWORD . "\n");
        $client = new Client(Stack::base(), ['appId' => 1]);
        $client->login($email, self::PASSWORD);

        try {
            $client->changePassword('Wrong@Pass2026', self::NEW_PASSWORD);
            self::fail('a wrong current password was accepted');
        } catch (UnauthorizedException $e) {
            self::assertSame('Invalid credentials', $e->getMessage());
        }
        $client->changePassword(self::PASSWORD, self::NEW_PASSWORD);
        $client->login($email, self::NEW_PASSWORD);

        try {
            $client->changeEmail($other, self::NEW_PASSWORD);
            self::fail('a taken address was accepted');
        } catch (ConflictException $e) {
            self::assertSame('User with this email already exists', $e->getMessage());
        }

        $account = $client->exportAccount();
        self::assertSame($email, $account['profile']['email']);
        self::assertNotEmpty($account['sessions']);

        $client->deleteAccount(self::NEW_PASSWORD);
        self::assertNull($client->accountToken());
        $this->expectException(UnauthorizedException::class);
        $client->login($email, self::NEW_PASSWORD);
    }
}
