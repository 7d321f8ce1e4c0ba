<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * The published key set (GET /.well-known/jwks.json), fetched and kept in a
 * file the caller chooses, so every PHP request of a site shares one copy.
 *
 * Contract:
 * - key($kid) answers from the cache while it is fresh: for the reply's
 *   `Cache-Control: max-age` (300 s from svc; 300 s when absent), at least
 *   REFETCH_INTERVAL and at most MAX_AGE_LIMIT seconds.
 * - A kid the cache does not know makes it fetch again, at most once every
 *   REFETCH_INTERVAL seconds; the time of the last fetch is in the cache
 *   file, so the limit holds across requests (a lock file, PATH.lock,
 *   serialises the processes that want to fetch). A token naming made-up
 *   kids therefore costs svc at most one JWKS request a minute.
 * - The file is replaced atomically (a temporary file in the same folder,
 *   then rename). It must live in a folder only the site's own user can
 *   write: whoever can write it chooses the keys that verify tokens. A file
 *   written for another JWKS URL is ignored.
 * - Without a path the set lives in this object only (one fetch per PHP
 *   request that verifies: set a path in production).
 * - A failed fetch throws (TransportException without a reply,
 *   ApiException for a reply that is not a key set); nothing is cached then.
 *
 * Not thread-safe; safe across processes sharing the file.
 */
final class JwksCache
{
    public const REFETCH_INTERVAL = 60;
    public const DEFAULT_MAX_AGE = 300;
    public const MAX_AGE_LIMIT = 86400;

    private string $url;
    private ?string $path;
    /** @var callable(string): array{0: string, 1: ?int} */
    private $fetch;
    /** @var callable(): int */
    private $clock;
    /** @var ?array{url: string, fetched_at: int, expires_at: int, keys: array} */
    private ?array $state = null;
    /** @var array<string, ?Jwk> parsed keys of $state, by kid */
    private array $parsed = [];

    /**
     * @param string $url the JWKS address
     * @param ?string $path the cache file (its folder must exist), or null for none
     * @param ?callable(string): array{0: string, 1: ?int} $fetch returns the body of a
     *        200 reply and its max-age (null when none); throws when there is none.
     *        Default: curlFetcher(10). Tests pass their own.
     * @param ?callable(): int $clock Unix time; default time()
     */
    public function __construct(string $url, ?string $path = null, ?callable $fetch = null, ?callable $clock = null)
    {
        $this->url = $url;
        $this->path = $path;
        $this->fetch = $fetch ?? self::curlFetcher(10);
        $this->clock = $clock ?? static fn (): int => time();
    }

    /** The usable key named $kid (see the class comment for when it fetches), or null. */
    public function key(string $kid): ?Jwk
    {
        $now = ($this->clock)();
        if ($this->state === null || $now >= $this->state['expires_at'] || !$this->has($kid)) {
            $this->use($this->load($now) ?? $this->state);  // another request may have fetched
            if ($this->mustFetch($kid, $now)) {
                $this->withLock(function () use ($kid, $now): void {
                    $this->use($this->load($now) ?? $this->state);  // ... or did while we waited
                    if ($this->mustFetch($kid, $now)) {
                        $this->use($this->fetchState($now));
                        $this->store();
                    }
                });
            }
        }
        return $this->has($kid) ? $this->parsed[$kid] : null;
    }

    /** A fetcher over ext-curl: GET, no redirects, http(s) only, $timeout seconds. */
    public static function curlFetcher(int $timeout): callable
    {
        return static function (string $url) use ($timeout): array {
            $cacheControl = '';
            $curl = curl_init($url);
            curl_setopt_array($curl, [
                CURLOPT_HTTPGET => true,
                CURLOPT_HTTPHEADER => ['Accept: application/json'],
                CURLOPT_RETURNTRANSFER => true,
                CURLOPT_TIMEOUT => $timeout,
                CURLOPT_FOLLOWLOCATION => false,
                CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
                CURLOPT_HEADERFUNCTION => static function ($curl, string $line) use (&$cacheControl): int {
                    if (stripos($line, 'cache-control:') === 0) {
                        $cacheControl .= ',' . substr($line, 14);
                    }
                    return strlen($line);
                },
            ]);
            $raw = curl_exec($curl);
            $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
            $error = curl_error($curl);
            curl_close($curl);
            if ($raw === false || $status === 0) {
                throw new TransportException('JWKS unreachable: ' . $error, 0, null, []);
            }
            if ($status !== 200) {
                throw new ApiException('JWKS fetch failed: HTTP ' . $status, $status, null, []);
            }
            return [(string) $raw, self::maxAge($cacheControl)];
        };
    }

    /** The max-age of a Cache-Control value (0 for no-store/no-cache), null when it has none. */
    public static function maxAge(string $cacheControl): ?int
    {
        if (preg_match('/(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)/i', $cacheControl)) {
            return 0;
        }
        if (preg_match('/(?:^|,)\s*max-age\s*=\s*"?(\d{1,10})"?\s*(?:,|$)/i', $cacheControl, $m)) {
            return (int) $m[1];
        }
        return null;
    }

    /** No set, or a stale one, or $kid unknown; and the last fetch is a minute old. */
    private function mustFetch(string $kid, int $now): bool
    {
        if ($this->state === null) {
            return true;
        }
        $mayFetch = $now - $this->state['fetched_at'] >= self::REFETCH_INTERVAL;
        return $mayFetch && ($now >= $this->state['expires_at'] || !$this->has($kid));
    }

    private function has(string $kid): bool
    {
        if ($this->state === null) {
            return false;
        }
        if (!array_key_exists($kid, $this->parsed)) {
            $entry = $this->state['keys'][$kid] ?? null;
            $this->parsed[$kid] = is_array($entry) ? Jwk::fromArray($entry) : null;
        }
        return $this->parsed[$kid] !== null;
    }

    private function use(?array $state): void
    {
        if ($state !== $this->state) {
            $this->state = $state;
            $this->parsed = [];
        }
    }

    /** Fetches the set; the state to keep, with `keys` by kid. */
    private function fetchState(int $now): array
    {
        [$body, $maxAge] = ($this->fetch)($this->url);
        $set = json_decode($body, true);
        if (!is_array($set) || !isset($set['keys']) || !is_array($set['keys']) || !array_is_list($set['keys'])) {
            throw new ApiException('JWKS reply is not a key set', 200, null, []);
        }
        $keys = [];
        foreach ($set['keys'] as $entry) {
            if (is_array($entry) && is_string($entry['kid'] ?? null) && !isset($keys[$entry['kid']])) {
                $keys[$entry['kid']] = $entry;
            }
        }
        $ttl = min(max($maxAge ?? self::DEFAULT_MAX_AGE, self::REFETCH_INTERVAL), self::MAX_AGE_LIMIT);
        return ['url' => $this->url, 'fetched_at' => $now, 'expires_at' => $now + $ttl, 'keys' => $keys];
    }

    /** The state in the file, or null when there is none for this URL (or no file at all). */
    private function load(int $now): ?array
    {
        if ($this->path === null || !is_file($this->path)) {
            return null;
        }
        $state = json_decode((string) @file_get_contents($this->path), true);
        $valid = is_array($state) && ($state['url'] ?? null) === $this->url
            && is_int($state['fetched_at'] ?? null) && is_int($state['expires_at'] ?? null)
            && is_array($state['keys'] ?? null) && $state['fetched_at'] <= $now + self::REFETCH_INTERVAL;
        return $valid ? $state : null;
    }

    private function store(): void
    {
        if ($this->path === null) {
            return;
        }
        $json = json_encode($this->state, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR);
        $tmp = @tempnam(dirname($this->path), basename($this->path) . '.');
        if ($tmp === false || @file_put_contents($tmp, $json) !== strlen($json) || !@chmod($tmp, 0644)
            || !@rename($tmp, $this->path)) {
            if ($tmp !== false) {
                @unlink($tmp);
            }
            throw new ApiException('JWKS cache not writable: ' . $this->path, 0, null, []);
        }
    }

    private function withLock(callable $work): void
    {
        if ($this->path === null) {
            $work();
            return;
        }
        $lock = @fopen($this->path . '.lock', 'c');
        if ($lock === false || !flock($lock, LOCK_EX)) {
            throw new ApiException('JWKS cache not writable: ' . $this->path . '.lock', 0, null, []);
        }
        try {
            $work();
        } finally {
            flock($lock, LOCK_UN);
            fclose($lock);
        }
    }
}
