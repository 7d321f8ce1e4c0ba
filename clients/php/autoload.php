<?php

// For sites without Composer: require this file, then use Svc\Client\Client.
spl_autoload_register(static function (string $class): void {
    $prefix = 'Svc\\Client\\';
    if (strncmp($class, $prefix, strlen($prefix)) === 0) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
