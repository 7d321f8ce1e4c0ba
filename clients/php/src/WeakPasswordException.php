<?php

declare(strict_types=1);

namespace Svc\Client;

/** 400 Password does not meet security requirements; requirements() tells which rule failed. */
final class WeakPasswordException extends ApiException
{
    /** @return array{minLength: bool, hasUpperCase: bool, hasLowerCase: bool, hasNumber: bool, hasSpecialChar: bool} */
    public function requirements(): array
    {
        return $this->body()['requirements'] ?? [];
    }
}
