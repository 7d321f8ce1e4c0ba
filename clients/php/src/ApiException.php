<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * A reply that was not a 200 Success: the HTTP status, the reply's `status`
 * (Failed or Error) and `message` (getMessage()), and the whole body.
 * Subclasses name the cases a site usually handles apart.
 */
class ApiException extends \RuntimeException
{
    private int $httpStatus;
    private ?string $apiStatus;
    private array $body;

    public function __construct(string $message, int $httpStatus, ?string $apiStatus, array $body)
    {
        parent::__construct($message, $httpStatus);
        $this->httpStatus = $httpStatus;
        $this->apiStatus = $apiStatus;
        $this->body = $body;
    }

    /** The exception class for a reply (status code and decoded body). */
    public static function fromReply(int $httpStatus, array $body): self
    {
        $message = isset($body['message']) && is_string($body['message']) ? $body['message'] : 'HTTP ' . $httpStatus;
        $apiStatus = isset($body['status']) && is_string($body['status']) ? $body['status'] : null;
        if ($httpStatus === 400 && isset($body['requirements'])) {
            return new WeakPasswordException($message, $httpStatus, $apiStatus, $body);
        }
        if ($httpStatus === 400 && isset($body['errors'])) {
            return new ValidationException($message, $httpStatus, $apiStatus, $body);
        }
        return match ($httpStatus) {
            401 => new UnauthorizedException($message, $httpStatus, $apiStatus, $body),
            403 => $message === 'Email not verified'
                ? new EmailNotVerifiedException($message, $httpStatus, $apiStatus, $body)
                : new self($message, $httpStatus, $apiStatus, $body),
            404 => new NotFoundException($message, $httpStatus, $apiStatus, $body),
            409 => new ConflictException($message, $httpStatus, $apiStatus, $body),
            429 => new RateLimitException($message, $httpStatus, $apiStatus, $body),
            default => new self($message, $httpStatus, $apiStatus, $body),
        };
    }

    /** The HTTP status (0 when no reply came). */
    public function httpStatus(): int
    {
        return $this->httpStatus;
    }

    /** The reply's `status` field: Failed or Error (null without one). */
    public function apiStatus(): ?string
    {
        return $this->apiStatus;
    }

    /** The validation errors: a list of ['field' => ..., 'message' => ...] ([] for other replies). */
    public function errors(): array
    {
        return $this->body['errors'] ?? [];
    }

    /** The decoded reply body. */
    public function body(): array
    {
        return $this->body;
    }
}
