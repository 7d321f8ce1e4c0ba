<?php
// The PHP-FPM peer's helpers: configuration, the database, replies, field
// checks, HS256 and ES256 JWTs, encrypted ids, site keys and template merging.
// Plain PHP 8.2 (ext-pdo_mysql, ext-sodium); no framework, no Composer.
declare(strict_types=1);

const GENERIC_ERROR = 'An error occurred while processing your request';
const AUTH_TABLES = ['svc_users', 'svc_staff'];
const FOLDER_TABLES = ['svc_folders'];
const ACCESS_TTL = 3600;
const REFRESH_TTL = 30 * 86400;
const RESET_TTL = 3600;
// The Argon2id parameters of svc's hashes (crypto_pwhash_str, OWASP's m=19 MiB,
// t=2, p=1): with these, password_needs_rehash() is false for them.
const ARGON2_OPTIONS = ['memory_cost' => 19456, 'time_cost' => 2, 'threads' => 1];

/** Thrown by a handler for anything the client should see: the reply's status and body. */
final class Reply extends Exception
{
    public function __construct(public readonly int $http, public readonly array $body)
    {
        parent::__construct((string)($body['message'] ?? ''));
    }

    public static function failed(int $http, string $message): self
    {
        return new self($http, ['status' => 'Failed', 'message' => $message]);
    }

    public static function validation(array $errors): self
    {
        return new self(400, ['status' => 'Failed', 'message' => 'Validation error', 'errors' => $errors]);
    }
}

/** The peer's settings: an INI file named by the pool's PEER_CONFIG (bench/php_peer.py writes it). */
function config(): array
{
    static $config = null;
    if ($config === null) {
        $config = parse_ini_file((string)getenv('PEER_CONFIG'), false, INI_SCANNER_RAW);
        if ($config === false) {
            throw new RuntimeException('PEER_CONFIG is not readable');
        }
    }
    return $config;
}

/**
 * One persistent connection per FPM worker (PDO::ATTR_PERSISTENT), prepared statements only (PDO's
 * default client-side preparation: one round trip per statement).
 */
function db(): PDO
{
    static $pdo = null;
    if ($pdo === null) {
        $c = config();
        $pdo = new PDO('mysql:unix_socket=' . $c['db_socket'] . ';dbname=' . $c['db_name'] . ';charset=utf8mb4',
            $c['db_user'], $c['db_password'], [
                PDO::ATTR_PERSISTENT => true,
                PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
                PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
            ]);
    }
    return $pdo;
}

function query(string $sql, array $params = []): PDOStatement
{
    $st = db()->prepare($sql);
    $st->execute($params);
    return $st;
}

function send_json(int $http, array $body): void
{
    http_response_code($http);
    header('Content-Type: application/json');
    echo json_encode($body, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
}

/** The request body as an array; anything but a JSON object is a validation error on `body`. */
function json_body(): array
{
    $body = json_decode((string)file_get_contents('php://input'), true, 32);
    if (!is_array($body) || array_is_list($body) && $body !== []) {
        throw Reply::validation([['field' => 'body', 'message' => 'body must be a JSON object']]);
    }
    return $body;
}

/** Collects field errors, then throws them all at once (the spec's errors list). */
final class Fields
{
    private array $errors = [];

    public function __construct(private readonly array $body)
    {
    }

    public function add(string $field, string $message): void
    {
        $this->errors[] = ['field' => $field, 'message' => $message];
    }

    public function string(string $name, bool $required, int $max = 1024): ?string
    {
        $v = $this->body[$name] ?? null;
        if ($v === null || $v === '') {
            if ($required) {
                $this->add($name, "$name is required");
            }
            return null;
        }
        if (!is_string($v) || strlen($v) > $max) {
            $this->add($name, "$name must be a string of at most $max bytes");
            return null;
        }
        return $v;
    }

    public function email(): ?string
    {
        $v = $this->string('email', true, 254);
        if ($v !== null && filter_var($v, FILTER_VALIDATE_EMAIL) === false) {
            $this->add('email', 'email must be a valid e-mail address');
            return null;
        }
        return $v;
    }

    /** A positive id as a JSON number or a decimal string. */
    public function id(string $name, bool $required): ?int
    {
        $v = $this->body[$name] ?? null;
        if ($v === null || $v === '') {
            if ($required) {
                $this->add($name, "$name is required");
            }
            return null;
        }
        if (is_int($v) && $v > 0 || is_string($v) && ctype_digit($v) && strlen($v) < 19 && (int)$v > 0) {
            return (int)$v;
        }
        $this->add($name, "$name must be a positive integer");
        return null;
    }

    /** The table named by `name` (or the first of `allowed` when optional and absent), if allowed. */
    public function table(string $name, array $allowed, bool $required): ?string
    {
        $v = $this->string($name, $required, 64);
        if ($v === null) {
            return $required ? null : $allowed[0];
        }
        if (!in_array($v, $allowed, true)) {
            $this->add($name, "$name is not an allowed table");
            return null;
        }
        return $v;
    }

    public function check(): void
    {
        if ($this->errors) {
            throw Reply::validation($this->errors);
        }
    }
}

function base64url_encode(string $raw): string
{
    return rtrim(strtr(base64_encode($raw), '+/', '-_'), '=');
}

function base64url_decode(string $text): ?string
{
    if (preg_match('/^[A-Za-z0-9_-]*$/', $text) !== 1) {
        return null;
    }
    $raw = base64_decode(strtr($text, '-_', '+/'), true);
    return $raw === false ? null : $raw;
}

/** A secret of the peer's configuration (base64url). */
function key_bytes(string $name): string
{
    $raw = base64url_decode(config()[$name] ?? '');
    if ($raw === null || strlen($raw) < 32) {
        throw new RuntimeException("configuration key $name is not base64url of 32 bytes or more");
    }
    return $raw;
}

function jwt_sign(array $claims, string $key): string
{
    $head = base64url_encode(json_encode(['alg' => 'HS256', 'typ' => 'JWT']));
    $body = base64url_encode(json_encode($claims, JSON_UNESCAPED_SLASHES));
    return "$head.$body." . base64url_encode(hash_hmac('sha256', "$head.$body", $key, true));
}

/** An ES256 JWT with the peer's EC P-256 key (config es256_key, a PEM file); JWS wants r || s, not DER. */
function jwt_sign_es256(array $claims): string
{
    $head = base64url_encode(json_encode(['alg' => 'ES256', 'typ' => 'JWT']));
    $body = base64url_encode(json_encode($claims, JSON_UNESCAPED_SLASHES));
    $key = openssl_pkey_get_private('file://' . config()['es256_key']);
    if ($key === false || !openssl_sign("$head.$body", $der, $key, OPENSSL_ALGO_SHA256)) {
        throw new RuntimeException('ES256 signing failed');
    }
    // SEQUENCE { INTEGER r, INTEGER s } (under 128 bytes for P-256): each integer to 32 bytes.
    $raw = '';
    for ($at = 2, $i = 0; $i < 2; $i++, $at += 2 + ord($der[$at + 1])) {
        $raw .= str_pad(ltrim(substr($der, $at + 2, ord($der[$at + 1])), "\0"), 32, "\0", STR_PAD_LEFT);
    }
    return "$head.$body." . base64url_encode($raw);
}

/**
 * The claims of an HS256 token signed with `key` whose typ is `typ`; null when
 * malformed or forged. The signature is checked (hash_equals) before any claim is read.
 */
function jwt_verify(string $token, string $key, string $typ): ?array
{
    $parts = explode('.', $token);
    if (count($parts) !== 3 || strlen($token) > 8192) {
        return null;
    }
    [$head, $body, $sig] = $parts;
    $given = base64url_decode($sig);
    if ($given === null || !hash_equals(hash_hmac('sha256', "$head.$body", $key, true), $given)) {
        return null;
    }
    $header = json_decode((string)base64url_decode($head), true);
    $claims = json_decode((string)base64url_decode($body), true);
    if (($header['alg'] ?? '') !== 'HS256' || !is_array($claims) || ($claims['typ'] ?? '') !== $typ
        || !is_int($claims['exp'] ?? null)) {
        return null;
    }
    return $claims;
}

/** The user id of an encrypted id (XChaCha20-Poly1305 of {"uid","exp"}, svc's format); throws Reply. */
function open_user_id(string $token): int
{
    $raw = strlen($token) <= 1024 ? base64url_decode($token) : null;
    $nonce = SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_NPUBBYTES;
    if ($raw === null || strlen($raw) < $nonce + SODIUM_CRYPTO_AEAD_XCHACHA20POLY1305_IETF_ABYTES) {
        throw Reply::failed(500, GENERIC_ERROR);
    }
    $plain = sodium_crypto_aead_xchacha20poly1305_ietf_decrypt(substr($raw, $nonce), 'svc:user-id:v1',
        substr($raw, 0, $nonce), key_bytes('id_key'));
    $id = $plain === false ? null : json_decode($plain, true);
    if (!is_int($id['uid'] ?? null) || !is_int($id['exp'] ?? null)) {
        throw Reply::failed(500, GENERIC_ERROR);
    }
    if ($id['exp'] <= time()) {
        throw Reply::failed(400, 'Token expired');
    }
    return $id['uid'];
}

function header_value(string $name): string
{
    return (string)($_SERVER['HTTP_' . strtoupper(str_replace('-', '_', $name))] ?? '');
}

/** An active site by id, or null. */
function find_site(int $id): ?array
{
    $row = query('SELECT id, active, disable_email, reset_url, email_from, api_key_hash, user_pool'
        . ' FROM svc_sites WHERE id = ?', [$id])->fetch();
    return $row && $row['active'] ? $row : null;
}

/** Whether x-site-key hashes (BLAKE2b-256, hex: svc's api_key_hash) to the site's key hash. */
function site_key_matches(array $site): bool
{
    $key = header_value('x-site-key');
    if ($key === '' || (string)$site['api_key_hash'] === '') {
        return false;
    }
    return hash_equals((string)$site['api_key_hash'], sodium_bin2hex(sodium_crypto_generichash($key)));
}

/** The site of a messaging request: site-id (or x-site-id) with its key; else 401 Error Unauthorized. */
function messaging_site(): array
{
    $header = header_value('site-id') ?: header_value('x-site-id');
    $site = ctype_digit($header) && strlen($header) < 19 ? find_site((int)$header) : null;
    if (!$site || (string)$site['api_key_hash'] !== '' && !site_key_matches($site)) {
        throw new Reply(401, ['status' => 'Error', 'message' => 'Unauthorized']);
    }
    return $site;
}

/** [field] placeholders replaced by `values`; unknown ones stay as written. */
function merge(string $template, array $values, bool $html): string
{
    return preg_replace_callback('/\[([A-Za-z0-9_.-]+)\]/', function (array $m) use ($values, $html): string {
        if (!array_key_exists($m[1], $values)) {
            return $m[0];
        }
        $v = $values[$m[1]];
        $text = is_bool($v) ? ($v ? 'true' : 'false') : (is_scalar($v) ? (string)$v : '');
        return $html ? htmlspecialchars($text, ENT_QUOTES | ENT_HTML5) : preg_replace('/[\x00-\x1f\x7f]/', '', $text);
    }, $template);
}

/** Addresses of a comma/semicolon list; a bad one is a validation error on `field`. */
function address_list(string $list, string $field): array
{
    $out = [];
    foreach (preg_split('/[,;]/', preg_replace('/[\r\n]/', '', $list)) as $a) {
        $a = trim($a);
        if ($a === '') {
            continue;
        }
        if (filter_var($a, FILTER_VALIDATE_EMAIL) === false) {
            throw Reply::validation([['field' => $field, 'message' => "$field holds an invalid e-mail address"]]);
        }
        $out[] = $a;
    }
    return $out;
}

/**
 * A Pending row of svc_notification_log, which svc-sender delivers. $mail: site_id, notification_id,
 * event, to, from, cc, bcc (lists), subject, body, priority.
 */
function enqueue_mail(array $mail): void
{
    query('INSERT INTO svc_notification_log (site_id, notification_id, event, recipient, `from`, cc, bcc, subject,'
        . ' body, status, next_attempt_at, request_id, priority)'
        . " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'Pending', NOW(), ?, ?)", [
        $mail['site_id'], $mail['notification_id'], $mail['event'], implode(',', $mail['to']), $mail['from'],
        implode(',', $mail['cc']), implode(',', $mail['bcc']), mb_strcut($mail['subject'], 0, 998), $mail['body'],
        substr((string)($_SERVER['REQUEST_ID'] ?? ''), 0, 64), $mail['priority'],
    ]);
}
