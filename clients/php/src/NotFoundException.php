<?php

declare(strict_types=1);

namespace Svc\Client;

/** 404: what the call names does not exist for this user (`Session not found`, `Passkey not found`). */
final class NotFoundException extends ApiException
{
}
