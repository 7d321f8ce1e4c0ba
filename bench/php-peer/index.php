<?php
// The PHP-FPM peer of `make bench`'s mixed-traffic arm (bench/mix.py): the six
// mix routes of the service specification, written as a PHP developer would
// for PHP-FPM behind nginx, against the same MariaDB tables as svc. One front
// controller; nginx sends the six paths here (bench/nginx-bench.conf.in).
// A bench peer, not a product: the spec's shapes, statuses and messages, not
// every addition svc makes (no login throttle, audit rows, second factor,
// caches, bearer path of getFolderLimits, SQL merge or locales) nor the
// notification fields the mix never sends (setEmailField, table/master_id
// links, the site's cc/bcc users).
declare(strict_types=1);

require __DIR__ . '/lib.php';

const ROUTES = [
    '/auth/login' => 'login',
    '/auth/refresh-token' => 'refresh_token',
    '/auth/user-email' => 'user_email',
    '/auth/getFolderLimits' => 'get_folder_limits',
    '/auth/request-pass' => 'request_pass',
    '/message/notification' => 'notification',
];
// Verified when the e-mail is unknown, so a miss costs one Argon2id verify like a hit.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$Zk9sWENpZnNqUFdmQnFtNg$YtEAAlXicO8+qz606oP76qYAG3qKHbgZmnZFN9eC1rU';
const USER_COLUMNS = 'id, user_email, password, first_name, last_name, primary_role, active, token_version';
const DEFAULT_RESET_SUBJECT = 'Reset your password';
const DEFAULT_RESET_CONTENT = '<p>Someone asked to reset the password of [email].</p>'
    . '<p><a href="[link]">Choose a new password</a> (the link is valid for [minutes] minutes).</p>'
    . '<p>If it was not you, you can ignore this e-mail.</p>';

/**
 * A fresh access token (1 h, ES256 with the peer's EC key) and refresh token (30 days, HS256 with its shared
 * secret) of session `sid` at generation `gen`, as svc signs them.
 */
function token_pair(array $user, string $table, int $app, string $sid, int $gen): array
{
    $now = time();
    $claims = ['sub' => (string)$user['id'], 'tbl' => $table, 'app' => $app, 'ver' => (int)$user['token_version'],
        'iat' => $now, 'sid' => $sid];
    return [
        'access_token' => jwt_sign_es256($claims + ['typ' => 'access', 'exp' => $now + ACCESS_TTL,
                'jti' => bin2hex(random_bytes(16))]),
        'refresh_token' => jwt_sign($claims + ['typ' => 'refresh', 'exp' => $now + REFRESH_TTL, 'gen' => $gen,
                'jti' => bin2hex(random_bytes(16))], key_bytes('jwt_secret')),
    ];
}

function login(): array
{
    $f = new Fields(json_body());
    $email = $f->email();
    $password = $f->string('password', true);
    if ($password !== null && mb_strlen($password) < 8) {
        $f->add('password', 'password must be at least 8 characters');
    }
    $app = $f->id('appID', false) ?? 0;
    $table = $f->table('authTable', AUTH_TABLES, false);
    $f->check();
    // An address is unique within its user pool: the site's (appID), or the default pool 1 without one.
    $user = query('SELECT ' . USER_COLUMNS . " FROM `$table` WHERE pool_id = COALESCE((SELECT user_pool"
        . ' FROM svc_sites WHERE id = ?), 1) AND user_email = ?', [$app, $email])->fetch();
    $hash = $user ? (string)$user['password'] : DUMMY_HASH;
    if (!password_verify($password, $hash) || !$user || !$user['active']) {
        throw Reply::failed(401, 'Invalid credentials');
    }
    if (password_needs_rehash($hash, PASSWORD_ARGON2ID, ARGON2_OPTIONS)) {
        query("UPDATE `$table` SET password = ? WHERE id = ? AND password = ?",
            [password_hash($password, PASSWORD_ARGON2ID, ARGON2_OPTIONS), $user['id'], $hash]);
    }
    // A session row (bench/php_peer.py creates the table), which refresh_token rotates.
    $sid = base64url_encode(random_bytes(16));
    query('INSERT INTO php_peer_sessions (id, auth_table, user_id, generation, created_at, rotated_at, expires_at)'
        . ' VALUES (?, ?, ?, 1, NOW(), NOW(), NOW() + INTERVAL 30 DAY)', [$sid, $table, $user['id']]);
    $token = token_pair($user, $table, $app, $sid, 1);
    $token['user'] = ['id' => (int)$user['id'], 'email' => $user['user_email'], 'firstName' => $user['first_name'],
        'lastName' => $user['last_name'], 'role' => $user['primary_role']];
    return [200, ['status' => 'Success', 'token' => $token]];
}

/**
 * Rotation as svc does it: one conditional UPDATE moves the session to the next generation while its user is
 * active and at the token's version; a token of an earlier generation (a reuse) changes no row, revokes the
 * session and gets 401.
 */
function refresh_token(): array
{
    $payload = json_body()['payload'] ?? null;
    $access = is_array($payload) ? ($payload['access_token'] ?? null) : null;
    $refresh = is_array($payload) ? ($payload['refresh_token'] ?? null) : null;
    $claims = is_string($access) && $access !== '' && is_string($refresh)
        ? jwt_verify($refresh, key_bytes('jwt_secret'), 'refresh') : null;
    if ($claims === null || !in_array($claims['tbl'] ?? null, AUTH_TABLES, true) || !is_string($claims['sid'] ?? null)
        || !is_int($claims['gen'] ?? null)) {
        throw Reply::failed(400, 'Invalid token format');
    }
    if ($claims['exp'] <= time()) {
        throw Reply::failed(401, 'Refresh token has expired');
    }
    $user = ['id' => (int)$claims['sub'], 'token_version' => $claims['ver'] ?? -1];
    $rotated = query('UPDATE php_peer_sessions SET generation = generation + 1, rotated_at = NOW()'
        . ' WHERE id = ? AND generation = ? AND revoked = 0 AND expires_at > NOW() AND EXISTS (SELECT 1 FROM'
        . " `{$claims['tbl']}` u WHERE u.id = ? AND u.active <> 0 AND u.token_version = ?)",
        [$claims['sid'], $claims['gen'], $user['id'], $user['token_version']]);
    if ($rotated->rowCount() !== 1) {
        query('UPDATE php_peer_sessions SET revoked = 1 WHERE id = ?', [$claims['sid']]);
        throw Reply::failed(401, 'Refresh token is no longer valid');
    }
    return [200, ['status' => 'Success', 'token' => token_pair($user, $claims['tbl'], (int)($claims['app'] ?? 0),
        $claims['sid'], $claims['gen'] + 1)]];
}

function user_email(): array
{
    $f = new Fields(json_body());
    $token = $f->string('userId', true);
    $f->check();
    $user = query('SELECT user_email, primary_role, active FROM svc_users WHERE id = ?', [open_user_id($token)])
        ->fetch();
    if (!$user || !$user['active']) {
        throw Reply::failed(404, 'User not found');
    }
    return [200, ['status' => 'Success', 'email' => $user['user_email'], 'role' => $user['primary_role']]];
}

/** A backend call: site-id = appID with that site's x-site-key (svc's site-key path). */
function get_folder_limits(): array
{
    $f = new Fields(json_body());
    $app = $f->id('appID', true);
    $table = $f->table('table', FOLDER_TABLES, true);
    $user = $f->id('userId', true);
    $f->check();
    $site = find_site($app);
    if (!$site) {
        throw Reply::validation([['field' => 'appID', 'message' => 'appID does not name an application']]);
    }
    $header = header_value('site-id') ?: header_value('x-site-id');
    if ($header !== (string)$app || !site_key_matches($site)) {
        throw Reply::failed(401, 'Unauthorized');
    }
    $ids = query("SELECT r.linked FROM svc_related r JOIN `$table` f ON f.id = r.linked"
        . ' WHERE r.master_table = ? AND r.master_id = ? AND r.linked_table = ? AND f.site_id = ? ORDER BY r.id',
        ['svc_users', $user, $table, $app])->fetchAll(PDO::FETCH_COLUMN);
    return [200, ['status' => 'Success', 'data' => array_map(fn($id) => ['linked' => (int)$id], $ids)]];
}

function request_pass(): array
{
    $f = new Fields(json_body());
    $email = $f->email();
    $app = $f->id('appID', true);
    $url = $f->string('url', false, 2048);
    $table = $f->table('authTable', AUTH_TABLES, false);
    $f->check();
    $site = find_site($app);
    if (!$site) {
        throw Reply::validation([['field' => 'appID', 'message' => 'appID does not name an application']]);
    }
    $bases = array_values(array_filter(array_map('trim', explode(',', (string)$site['reset_url']))));
    $base = $url ?? ($bases[0] ?? null);
    if ($base === null || $url !== null && !array_filter($bases, fn($b) => str_starts_with($url, $b))) {
        throw Reply::validation([['field' => 'url', 'message' => 'url must start with a reset URL this application allows']]);
    }
    $user = query('SELECT ' . USER_COLUMNS . " FROM `$table` WHERE pool_id = ? AND user_email = ?",
        [$site['user_pool'], $email])->fetch();
    // The same reply whether or not the address is registered; only a user who may reset is mailed.
    if ($user && $user['active'] && (string)$user['password'] !== '' && !$site['disable_email']) {
        queue_reset_mail($site, $user, $table, $base);
    }
    return [200, ['status' => 'Success', 'message' => "An e-mail with reset instructions has been sent to $email"]];
}

/** The reset link (token signed with the reset secret, bound to the current password hash) into the outbox. */
function queue_reset_mail(array $site, array $user, string $table, string $base): void
{
    $key = key_bytes('reset_secret');
    $now = time();
    $token = jwt_sign(['typ' => 'reset', 'sub' => (string)$user['id'], 'tbl' => $table, 'app' => (int)$site['id'],
        'iat' => $now, 'exp' => $now + RESET_TTL,
        'pwf' => base64url_encode(hash_hmac('sha256', (string)$user['password'], $key, true))], $key);
    $tmpl = query("SELECT id, subject, content, `from` FROM svc_notifications WHERE site_id = ?"
        . " AND event = 'password-reset' AND locale = '' AND enabled = 1", [$site['id']])->fetch()
        ?: ['id' => null, 'subject' => DEFAULT_RESET_SUBJECT, 'content' => DEFAULT_RESET_CONTENT, 'from' => null];
    $values = ['email' => $user['user_email'], 'firstName' => $user['first_name'], 'lastName' => $user['last_name'],
        'link' => $base . (str_contains($base, '?') ? '&' : '?') . 'token=' . $token, 'minutes' => RESET_TTL / 60];
    enqueue_mail(['site_id' => $site['id'], 'notification_id' => $tmpl['id'], 'event' => 'password-reset',
        'to' => [$user['user_email']], 'from' => $tmpl['from'] ?: $site['email_from'], 'cc' => [], 'bcc' => [],
        'subject' => merge($tmpl['subject'], $values, false), 'body' => merge($tmpl['content'], $values, true),
        'priority' => 0]);
}

function notification(): array
{
    $site = messaging_site();
    $body = json_body();
    $f = new Fields($body);
    $event = $f->string('event', true, 190);
    $email = $f->string('email', true, 2048);
    $data = $body['data'] ?? [];
    if (!is_array($data)) {
        $f->add('data', 'data must be an object');
    }
    $f->check();
    if ($site['disable_email']) {
        return [200, ['status' => 'Failed', 'message' => 'Notifications are disabled']];
    }
    $tmpl = query('SELECT id, event, subject, content, `from`, bcc FROM svc_notifications'
        . " WHERE site_id = ? AND event = ? AND locale = '' AND enabled = 1", [$site['id'], $event])->fetch();
    if (!$tmpl || $tmpl['event'] !== $event) {
        return [200, ['status' => 'Failed', 'message' => 'Notification event not found or disabled']];
    }
    enqueue_mail(['site_id' => $site['id'], 'notification_id' => $tmpl['id'], 'event' => $event,
        'to' => address_list($email, 'email'), 'from' => $tmpl['from'] ?: $site['email_from'], 'cc' => [],
        'bcc' => address_list((string)$tmpl['bcc'], 'bcc'), 'subject' => merge($tmpl['subject'], $data, false),
        'body' => merge($tmpl['content'], $data, true), 'priority' => 1]);
    return [200, ['status' => 'Success']];
}

$path = (string)parse_url((string)($_SERVER['REQUEST_URI'] ?? '/'), PHP_URL_PATH);
try {
    $handler = ROUTES[$path] ?? null;
    if ($handler === null) {
        throw Reply::failed(404, 'Not found');
    }
    if (($_SERVER['REQUEST_METHOD'] ?? '') !== 'POST') {
        throw Reply::failed(405, 'Method not allowed');
    }
    [$status, $reply] = $handler();
    send_json($status, $reply);
} catch (Reply $r) {
    send_json($r->http, $r->body);
} catch (Throwable $e) {
    error_log(sprintf('request_id=%s path=%s %s: %s', $_SERVER['REQUEST_ID'] ?? '-', $path, get_class($e),
        $e->getMessage()));
    send_json(500, ['status' => 'Failed', 'message' => GENERIC_ERROR]);
}
