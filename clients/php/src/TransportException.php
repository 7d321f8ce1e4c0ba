<?php

declare(strict_types=1);

namespace Svc\Client;

/** No reply: svc could not be reached (httpStatus() is 0). */
final class TransportException extends ApiException
{
}
