<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\Assert;

/**
 * The stack ctest started (scripts/stack.sh up; its env file in
 * $SVC_STACK_DIR): its env values, its address, its configuration and
 * svc-admin. Shared by the stack suite's test classes.
 */
final class Stack
{
    private static ?array $env = null;

    /** The env file's values; fails the test when there is no stack. */
    public static function env(): array
    {
        if (self::$env === null) {
            $dir = getenv('SVC_STACK_DIR') ?: '';
            $file = $dir . '/env';
            if ($dir === '' || !is_file($file)) {
                Assert::fail('no running stack: SVC_STACK_DIR has no env file (ctest starts it via stack.up)');
            }
            self::$env = [];
            foreach (file($file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
                [$k, $v] = array_pad(explode('=', $line, 2), 2, '');
                self::$env[$k] = $v;
            }
        }
        return self::$env;
    }

    public static function base(): string
    {
        return 'http://127.0.0.1:' . self::env()['SVC_HTTP_PORT'];
    }

    /** A key's value in the stack's svc.conf, or null when the file does not set it. */
    public static function config(string $section, string $key): ?string
    {
        $value = null;
        $in = false;
        foreach (file(self::env()['SVC_CONFIG'], FILE_IGNORE_NEW_LINES) as $line) {
            $line = trim($line);
            if (preg_match('/^\[(.+)\]$/', $line, $m)) {
                $in = trim($m[1]) === $section;
            } elseif ($in && preg_match('/^' . preg_quote($key, '/') . '\s*=\s*(.*)$/', $line, $m)) {
                $value = $m[1];
            }
        }
        return $value;
    }

    /** Runs svc-admin against the stack's configuration; returns its whole output. */
    public static function adminOutput(array $args, string $stdin = ''): string
    {
        $env = self::env();
        $cmd = array_merge([$env['SVC_BIN_DIR'] . '/svc-admin', '--config', $env['SVC_CONFIG']], $args);
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fwrite($pipes[0], $stdin);
        fclose($pipes[0]);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        Assert::assertSame(0, proc_close($proc), 'svc-admin ' . implode(' ', $args) . ': ' . $err);
        return $out;
    }

    /** Runs svc-admin; returns its last output line. */
    public static function admin(array $args, string $stdin = ''): string
    {
        $lines = array_values(array_filter(explode("\n", trim(self::adminOutput($args, $stdin)))));
        return (string) end($lines);
    }

    /** Runs SQL as root on the stack's MariaDB (its socket); returns the rows as lists of strings (NULL -> null). */
    public static function sql(string $statement): array
    {
        $cmd = ['mariadb', '--no-defaults', '--default-character-set=utf8mb4',
                '--socket=' . self::env()['SVC_MYSQL_SOCKET'], '-uroot', '-N', '-B', '--raw', 'svc', '-e', $statement];
        $proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        fclose($pipes[0]);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        Assert::assertSame(0, proc_close($proc), 'mariadb: ' . $err);
        $rows = [];
        foreach (explode("\n", rtrim((string) $out, "\n")) as $line) {
            if ($line !== '') {
                $rows[] = array_map(fn ($c) => $c === 'NULL' ? null : $c, explode("\t", $line));
            }
        }
        return $rows;
    }

    /** A raw JSON POST to the stack, past the client: [HTTP status, decoded body]. */
    public static function post(string $path, array $body, array $headers = []): array
    {
        $curl = curl_init(self::base() . $path);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => json_encode((object) $body, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR),
            CURLOPT_HTTPHEADER => array_merge(['Content-Type: application/json'], $headers),
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => 10,
        ]);
        $raw = curl_exec($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        curl_close($curl);
        return [$status, json_decode((string) $raw, true)];
    }

    /** The claims of a JWT (its signature unchecked: the test only reads them). */
    public static function claims(string $jwt): array
    {
        $parts = explode('.', $jwt);
        return json_decode((string) base64_decode(strtr($parts[1] ?? '', '-_', '+/')), true) ?? [];
    }

    /** Polls $find() (null = not yet) for up to 20 s. */
    public static function waitFor(callable $find, string $what)
    {
        $deadline = microtime(true) + 20;
        do {
            $found = $find();
            if ($found !== null) {
                return $found;
            }
            usleep(200000);
        } while (microtime(true) < $deadline);
        Assert::fail('nothing within 20 s: ' . $what);
    }

    /** The reset token of the mail the sink received for $email. */
    public static function resetTokenMailedTo(string $email): string
    {
        return self::waitFor(function () use ($email) {
            foreach (glob(self::env()['SVC_STACK_DIR'] . '/mail/*.eml') as $path) {
                $raw = (string) file_get_contents($path);
                if (stripos($raw, $email) === false) {
                    continue;
                }
                $text = quoted_printable_decode($raw);
                if (preg_match('/[?#&]token=([A-Za-z0-9_.-]+)/', $text, $m)) {
                    return $m[1];
                }
            }
            return null;
        }, 'reset mail to ' . $email);
    }
}
