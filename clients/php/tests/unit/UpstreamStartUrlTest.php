<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\Client;

/**
 * upstreamStartUrl() without a server: the address the browser is sent to
 * for "Sign in with …" (docs/api.md "Sign in with …").
 */
final class UpstreamStartUrlTest extends TestCase
{
    public function testTheStartUrlNamesTheProviderTheSiteAndTheReturnPage(): void
    {
        $client = new Client('https://svc.example.test/', ['appId' => 7]);
        $this->assertSame(
            'https://svc.example.test/auth/upstream/google/start?appID=7&return_to='
            . rawurlencode('https://shop.example.test/back?x=1'),
            str_replace('+', '%20', $client->upstreamStartUrl('google', 'https://shop.example.test/back?x=1'))
        );
    }

    public function testAProviderNameIsEscaped(): void
    {
        $client = new Client('https://svc.example.test', ['appId' => 7]);
        $this->assertStringStartsWith('https://svc.example.test/auth/upstream/a%2Fb/start?',
                                      $client->upstreamStartUrl('a/b', 'https://shop.example.test/'));
    }
}
