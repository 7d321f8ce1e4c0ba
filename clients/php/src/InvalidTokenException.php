<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * An access token that verifyAccessToken() refused. No request to svc was
 * involved, so httpStatus() is 0 and apiStatus() null; reason() says which
 * check failed, as one of the REASON_* constants (stable, for logs and
 * metrics; getMessage() is for people and may change).
 * A backend answers every one of them the same way: 401, log in again.
 */
final class InvalidTokenException extends ApiException
{
    /** Not three base64url parts, or a part that is not a JSON object. */
    public const REASON_MALFORMED = 'malformed';
    /** Header `typ` is not `at+jwt` (a refresh or reset token, a foreign JWT). */
    public const REASON_TYPE = 'type';
    /** Header `alg` is not ES256/EdDSA, or differs from the key's algorithm. */
    public const REASON_ALGORITHM = 'algorithm';
    /** Header `kid` missing, or no published key has it (after the allowed refetch). */
    public const REASON_UNKNOWN_KEY = 'unknown_key';
    /** The signature does not verify with the key. */
    public const REASON_SIGNATURE = 'signature';
    /** `iss` is not the expected issuer. */
    public const REASON_ISSUER = 'issuer';
    /** `aud` does not contain the expected audience (a token of another site). */
    public const REASON_AUDIENCE = 'audience';
    /** `exp` has passed (beyond the leeway). */
    public const REASON_EXPIRED = 'expired';
    /** `nbf` or `iat` lies in the future (beyond the leeway). */
    public const REASON_NOT_YET_VALID = 'not_yet_valid';
    /** `tbl` is not the expected user table. */
    public const REASON_TABLE = 'table';
    /** A required claim (`exp`, `sub`) is missing or has the wrong type. */
    public const REASON_CLAIMS = 'claims';

    private string $reason;

    public function __construct(string $reason, string $message)
    {
        parent::__construct($message, 0, null, []);
        $this->reason = $reason;
    }

    /** Which check failed: one of the REASON_* constants. */
    public function reason(): string
    {
        return $this->reason;
    }
}
