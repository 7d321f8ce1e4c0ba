<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * base64url without padding (RFC 7515 §2), strict: libsodium's decoder
 * refuses padding, whitespace, other alphabets and non-zero trailing bits,
 * so one token has exactly one spelling. Internal to the client.
 */
final class Base64Url
{
    /** The bytes, or null when $text is not strict base64url. */
    public static function decode(string $text): ?string
    {
        try {
            return sodium_base642bin($text, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
        } catch (\SodiumException) {
            return null;
        }
    }

    public static function encode(string $bytes): string
    {
        return sodium_bin2base64($bytes, SODIUM_BASE64_VARIANT_URLSAFE_NO_PADDING);
    }
}
