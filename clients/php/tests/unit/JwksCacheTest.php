<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

require_once __DIR__ . '/../TokenForge.php';

use PHPUnit\Framework\TestCase;
use Svc\Client\ApiException;
use Svc\Client\JwksCache;
use Svc\Client\TransportException;

/**
 * JwksCache: the file cache, max-age, the once-a-minute refetch shared
 * through the file, and the curl fetcher against a `php -S` on loopback.
 * Time comes from a fake clock; every "request" of a site is a new object.
 */
final class JwksCacheTest extends TestCase
{
    private const URL = 'https://svc.example.test/.well-known/jwks.json';

    private int $now = 1_900_000_000;
    private array $published;
    private ?int $maxAge = 300;
    private int $fetches = 0;
    private string $dir;

    protected function setUp(): void
    {
        $this->published = [TokenForge::es256Key('ec-1')['jwk'], TokenForge::eddsaKey('ed-1')['jwk']];
        $this->dir = sys_get_temp_dir() . '/svc-jwks-test-' . bin2hex(random_bytes(6));
        mkdir($this->dir, 0700);
    }

    protected function tearDown(): void
    {
        foreach (glob($this->dir . '/{,.}*', GLOB_BRACE) ?: [] as $file) {
            if (is_file($file)) {
                unlink($file);
            }
        }
        rmdir($this->dir);
    }

    /** A new cache object, as each PHP request of a site makes one. */
    private function cache(?string $file = 'jwks.json', string $url = self::URL): JwksCache
    {
        $fetch = function (string $fetched) use ($url): array {
            $this->assertSame($url, $fetched);
            $this->fetches++;
            return [json_encode(['keys' => $this->published]), $this->maxAge];
        };
        return new JwksCache($url, $file === null ? null : $this->dir . '/' . $file, $fetch, fn (): int => $this->now);
    }

    public function testMaxAgeOfCacheControl(): void
    {
        $cases = ['max-age=300' => 300, 'public, max-age=60' => 60, 'MAX-AGE = 5, must-revalidate' => 5,
                  'max-age="120"' => 120, 'no-store' => 0, 'max-age=300, no-cache' => 0, '' => null,
                  'private' => null, 's-maxage=30' => null, 'max-age=abc' => null, 'x-max-age=7' => null];
        foreach ($cases as $value => $expected) {
            $this->assertSame($expected, JwksCache::maxAge((string) $value), (string) $value);
        }
    }

    public function testTheFileIsSharedByEveryRequest(): void
    {
        $this->assertSame('ES256', $this->cache()->key('ec-1')->alg());
        $this->assertSame('EdDSA', $this->cache()->key('ed-1')->alg());
        $this->assertSame(1, $this->fetches);
        $state = json_decode(file_get_contents($this->dir . '/jwks.json'), true);
        $this->assertSame([self::URL, $this->now, $this->now + 300, ['ec-1', 'ed-1']],
                          [$state['url'], $state['fetched_at'], $state['expires_at'], array_keys($state['keys'])]);
        $this->assertSame(0644, fileperms($this->dir . '/jwks.json') & 0777);
        $this->assertSame(['jwks.json', 'jwks.json.lock'], array_map('basename', glob($this->dir . '/jwks.json*')),
                          'the temporary file was renamed, none is left');
    }

    public function testMaxAgeIsHonouredWithinBounds(): void
    {
        foreach ([[120, 120], [null, 300], [0, 60], [10, 60], [10 ** 9, 86400]] as [$maxAge, $ttl]) {
            $this->maxAge = $maxAge;
            $this->fetches = 0;
            $file = 'jwks-' . $ttl . '-' . var_export($maxAge, true) . '.json';
            $start = $this->now;
            $this->cache($file)->key('ec-1');
            $this->now = $start + $ttl - 1;
            $this->cache($file)->key('ec-1');
            $this->assertSame(1, $this->fetches, "max-age $maxAge: fresh for $ttl s");
            $this->now = $start + $ttl;
            $this->cache($file)->key('ec-1');
            $this->assertSame(2, $this->fetches, "max-age $maxAge: stale after $ttl s");
        }
    }

    public function testUnknownKidRefetchLimitHoldsAcrossRequests(): void
    {
        $this->cache()->key('ec-1');
        $this->now += 30;
        $this->assertNull($this->cache()->key('new'));
        $this->assertNull($this->cache()->key('new'));
        $this->assertSame(1, $this->fetches, 'within a minute of the last fetch, no request fetches again');
        $this->now += 30;
        $this->published[] = TokenForge::eddsaKey('new')['jwk'];
        $this->assertSame('EdDSA', $this->cache()->key('new')->alg());
        $this->assertSame(2, $this->fetches);
        $this->assertNull($this->cache()->key('other'));
        $this->assertSame(2, $this->fetches);
    }

    public function testWithoutAFileTheObjectKeepsTheSet(): void
    {
        $cache = $this->cache(null);
        $cache->key('ec-1');
        $this->assertNull($cache->key('nope'));
        $this->assertSame(1, $this->fetches);
        $this->cache(null)->key('ec-1');
        $this->assertSame(2, $this->fetches);
        $this->assertSame([], glob($this->dir . '/*'));
    }

    public function testAFileOfAnotherUrlOrCorruptIsIgnored(): void
    {
        $this->cache()->key('ec-1');
        $this->cache('jwks.json', 'https://other.example.test/jwks.json')->key('ec-1');
        $this->assertSame(2, $this->fetches, 'the other URL fetched its own set');
        foreach (['', 'garbage', '{"url":"' . self::URL . '","fetched_at":"1","expires_at":1,"keys":{}}', '[]'] as $content) {
            file_put_contents($this->dir . '/jwks.json', $content);
            $this->assertSame('ES256', $this->cache()->key('ec-1')->alg());
        }
        $this->assertSame(6, $this->fetches);
        // A fetch time in the future (a clock set back, a planted file) does not block fetching.
        $state = json_decode(file_get_contents($this->dir . '/jwks.json'), true);
        file_put_contents($this->dir . '/jwks.json', json_encode(['fetched_at' => $this->now + 3600, 'expires_at' => $this->now + 7200] + $state));
        $this->cache()->key('ec-1');
        $this->assertSame(7, $this->fetches);
    }

    public function testUnusableEntriesAreSkipped(): void
    {
        $ec = $this->published[0];
        $this->published = [
            ['kty' => 'oct', 'k' => 'c2VjcmV0', 'kid' => 'hs', 'alg' => 'HS256'],
            array_merge($ec, ['kid' => 'short', 'x' => substr($ec['x'], 0, 40)]),
            array_merge($ec, ['kid' => 'offcurve', 'y' => $ec['x']]),
            array_merge($ec, ['kid' => 'p384', 'crv' => 'P-384']),
            array_merge($ec, ['kid' => 'padded', 'x' => $ec['x'] . '=']),
            'not an object',
            $ec,
        ];
        $cache = $this->cache();
        foreach (['hs', 'short', 'offcurve', 'p384', 'padded'] as $kid) {
            $this->assertNull($cache->key($kid), $kid);
        }
        $this->assertSame('ec-1', $cache->key('ec-1')->kid());
    }

    public function testAFailedFetchThrowsAndCachesNothing(): void
    {
        $down = new JwksCache(self::URL, $this->dir . '/jwks.json', function (): array {
            throw new TransportException('JWKS unreachable: refused', 0, null, []);
        }, fn (): int => $this->now);
        try {
            $down->key('ec-1');
            $this->fail('no exception without a key set');
        } catch (TransportException $e) {
            $this->assertSame('JWKS unreachable: refused', $e->getMessage());
        }
        $this->assertFileDoesNotExist($this->dir . '/jwks.json');
        foreach (['{"keys":{"a":{}}}', '{}', 'null', '<html>'] as $body) {
            $bad = new JwksCache(self::URL, $this->dir . '/jwks.json', fn (): array => [$body, 300], fn (): int => $this->now);
            try {
                $bad->key('ec-1');
                $this->fail('accepted as a key set: ' . $body);
            } catch (ApiException $e) {
                $this->assertSame('JWKS reply is not a key set', $e->getMessage());
            }
        }
        $this->assertSame('ES256', $this->cache()->key('ec-1')->alg());
    }

    public function testAnUnwritableCacheIsAClearError(): void
    {
        $cache = new JwksCache(self::URL, $this->dir . '/missing/jwks.json', fn (): array => ['{"keys":[]}', 300],
                               fn (): int => $this->now);
        $this->expectException(ApiException::class);
        $this->expectExceptionMessage('JWKS cache not writable: ' . $this->dir . '/missing/jwks.json');
        $cache->key('ec-1');
    }

    public function testCurlFetcherReadsBodyAndMaxAgeAndRefusesOtherReplies(): void
    {
        $root = $this->dir . '/www';
        mkdir($root);
        file_put_contents($root . '/router.php', '<?php
            if ($_SERVER["REQUEST_URI"] === "/.well-known/jwks.json") {
                header("Content-Type: application/json");
                header("Cache-Control: public, max-age=120");
                echo getenv("JWKS_BODY");
                return true;
            }
            http_response_code(404);
            echo "{\"status\":\"Failed\"}";
            return true;');
        [$server, $port] = self::startPhpServer($root, ['JWKS_BODY' => json_encode(['keys' => $this->published])]);
        try {
            $fetch = JwksCache::curlFetcher(5);
            [$body, $maxAge] = $fetch("http://127.0.0.1:$port/.well-known/jwks.json");
            $this->assertSame(['keys' => $this->published], json_decode($body, true));
            $this->assertSame(120, $maxAge);
            try {
                $fetch("http://127.0.0.1:$port/nothing");
                $this->fail('a 404 was taken for a key set');
            } catch (ApiException $e) {
                $this->assertSame([404, 'JWKS fetch failed: HTTP 404'], [$e->httpStatus(), $e->getMessage()]);
            }
            $cache = new JwksCache("http://127.0.0.1:$port/.well-known/jwks.json", $this->dir . '/jwks.json', $fetch,
                                   fn (): int => $this->now);
            $this->assertSame('EdDSA', $cache->key('ed-1')->alg());
            $this->assertSame($this->now + 120, json_decode(file_get_contents($this->dir . '/jwks.json'), true)['expires_at']);
        } finally {
            proc_terminate($server);
            proc_close($server);
            array_map('unlink', glob($root . '/*'));
            rmdir($root);
        }
        try {
            $fetch("http://127.0.0.1:$port/.well-known/jwks.json");
            $this->fail('a stopped server answered');
        } catch (TransportException $e) {
            $this->assertSame(0, $e->httpStatus());
        }
    }

    /** `php -S` on a free loopback port, up when it accepts a connection (10 s deadline). */
    private static function startPhpServer(string $root, array $env): array
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        $server = proc_open([PHP_BINARY, '-S', "127.0.0.1:$port", $root . '/router.php'],
                            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
                            $pipes, $root, $env + getenv());
        $deadline = microtime(true) + 10;
        while (($conn = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $error, 1)) === false) {
            if (microtime(true) > $deadline || !proc_get_status($server)['running']) {
                proc_terminate($server);
                self::fail("php -S on port $port did not come up: $error");
            }
            usleep(20000);
        }
        fclose($conn);
        return [$server, $port];
    }
}
