<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * 403 Email not verified: the right password of an address that is not
 * verified yet, on an application with `site set --verify-email`. Offer
 * resendVerification() to the user.
 */
final class EmailNotVerifiedException extends ApiException
{
}
