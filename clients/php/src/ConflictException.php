<?php

declare(strict_types=1);

namespace Svc\Client;

/** 409: the e-mail is already registered. */
final class ConflictException extends ApiException
{
}
