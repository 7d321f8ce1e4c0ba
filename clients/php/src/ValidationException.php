<?php

declare(strict_types=1);

namespace Svc\Client;

/** 400 Validation error; errors() lists {field, message}. */
final class ValidationException extends ApiException
{
}
