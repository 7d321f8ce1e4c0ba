<?php

declare(strict_types=1);

namespace Svc\Client;

/** 401: wrong credentials, an expired or revoked refresh token, a missing or wrong site key. */
final class UnauthorizedException extends ApiException
{
}
