<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * 401 `Second factor required` from login(): the password was right and the
 * user has a second factor. Ask for a code of the authenticator app (or a
 * recovery code) and call Client::verifySecondFactor(mfaToken(), …) within
 * 5 minutes (5 tries).
 */
final class SecondFactorRequiredException extends ApiException
{
    /** The token of this login's second step. */
    public function mfaToken(): string
    {
        return (string) ($this->body()['mfa_token'] ?? '');
    }

    /** @return string[] what the second step accepts, e.g. ['totp', 'recovery_code'] */
    public function methods(): array
    {
        $methods = $this->body()['methods'] ?? [];
        return is_array($methods) ? array_values(array_filter($methods, 'is_string')) : [];
    }
}
