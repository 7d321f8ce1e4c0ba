<?php

declare(strict_types=1);

namespace Svc\Client;

/** 429: too many attempts or requests; retryAfter() in seconds when the server said. */
final class RateLimitException extends ApiException
{
    public function retryAfter(): ?int
    {
        return isset($this->body()['retry_after']) ? (int) $this->body()['retry_after'] : null;
    }
}
