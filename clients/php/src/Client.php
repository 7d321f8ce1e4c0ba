<?php

declare(strict_types=1);

namespace Svc\Client;

/**
 * A small client for the svc API (docs/api.md, docs/openapi.yaml), using
 * ext-curl and ext-json only (and ext-openssl, ext-sodium to verify tokens).
 *
 * Contract:
 * - Every method returns the decoded reply body (an array) of a 200 whose
 *   `status` is `Success`, and throws otherwise: ValidationException (400
 *   Validation error, with errors()), WeakPasswordException (requirements()),
 *   UnauthorizedException (401; login() and signInWithEmailCode() of a user
 *   with a second factor: SecondFactorRequiredException),
 *   EmailNotVerifiedException (403 of login() on a site that requires
 *   verified addresses), NotFoundException (404: revokeSession() of an id
 *   that is not an open session of the user), ConflictException (409), RateLimitException
 *   (429, retryAfter()), ApiException for every other reply (httpStatus(),
 *   apiStatus(), getMessage(), body()), TransportException when no reply came.
 *   The 200 replies whose status is `Failed` or `Error` (a disabled or
 *   unknown notification, a push that did not go out) throw ApiException
 *   with httpStatus() 200.
 * - login, signInWithEmailCode, signUp and refresh keep the token pair in the object; tokens()
 *   and setTokens() move it to and from the caller's session, and the
 *   `onTokens` option is told of every pair the client takes or drops.
 *   signOut() (this session or `global`) forgets it. A sign-in also keeps
 *   its account token (accountToken()): the passkey and session calls send
 *   it, never the access token, because svc's account routes refuse a token
 *   whose audience is the site's (docs/api.md "Account tokens"). A refresh
 *   does not renew it: after it expires (1 h) or when svc asks for a recent
 *   sign-in (enrolment, 10 minutes), sign in again.
 * - Refresh tokens rotate: each renewal spends the refresh token and keeps
 *   the new pair (both tokens). Within one process a refresh token is sent
 *   at most once: another Client holding a spent one takes the pair its
 *   renewal got. A renewal refused with 401 (expired, no longer valid,
 *   revoked) drops the pair and throws UnauthorizedException.
 * - getFolderLimits sends the access token; one that has expired (by its
 *   `exp`, or a 401 reply) is renewed with the refresh token once and the
 *   call repeated once.
 * - The messaging calls send `site-id` and, when configured, `x-site-key`.
 * - verifyAccessToken checks a bearer token locally with the published keys
 *   (AccessTokenVerifier, JwksCache): no request per token, one JWKS fetch
 *   per max-age (or per minute for an unknown kid). InvalidTokenException
 *   when it is refused.
 *
 * Not thread-safe (one object per request of a PHP site is the intended use).
 */
final class Client
{
    private string $baseUrl;
    private ?int $siteId;
    private ?string $siteKey;
    private ?int $appId;
    private int $timeout;
    private ?string $accessToken = null;
    private ?string $refreshToken = null;
    private ?string $accountToken = null;
    private bool $passwordBreached = false;
    private array $verifyOptions;
    private ?AccessTokenVerifier $verifier = null;
    /** @var (callable(?string, ?string): void)|null */
    private $onTokens;

    /** How many renewals of this process are remembered (the spent refresh token's hash => the pair it got). */
    private const RENEWALS_KEPT = 64;
    /** @var array<string, array{access_token: string, refresh_token: string}> */
    private static array $renewals = [];

    /**
     * @param string $baseUrl the svc base address, e.g. https://svc.example.com
     * @param array{siteId?: int, siteKey?: string, appId?: int, timeout?: int, onTokens?: callable,
     *        issuer?: string, audience?: string, tokenTable?: string, leeway?: int, jwksUrl?: string,
     *        jwksCache?: string} $options
     *        siteId: the application id sent as `site-id` (messaging) and as
     *        appID when appId is not given; siteKey: the site's `x-site-key`;
     *        timeout: seconds per request (default 10); onTokens:
     *        function (?string $accessToken, ?string $refreshToken): void,
     *        called with every pair the client keeps (sign-in, each renewal:
     *        store it, the previous refresh token is spent) and with
     *        (null, null) when it drops them (sign-out, a refused renewal);
     *        not called by setTokens().
     *        For verifyAccessToken: issuer (`[tokens] issuer` of svc) and
     *        audience (your site's, `svc-admin site show`) are required;
     *        tokenTable: the `tbl` to require; leeway: seconds of clock
     *        difference on exp/nbf/iat (0-60, default 30); jwksUrl (default
     *        the base address + /.well-known/jwks.json); jwksCache: the cache
     *        file, in a folder only the site's user can write (default none:
     *        the keys are fetched once per Client object).
     */
    public function __construct(string $baseUrl, array $options = [])
    {
        $this->baseUrl = rtrim($baseUrl, '/');
        $this->siteId = isset($options['siteId']) ? (int) $options['siteId'] : null;
        $this->siteKey = isset($options['siteKey']) && $options['siteKey'] !== '' ? (string) $options['siteKey'] : null;
        $this->appId = isset($options['appId']) ? (int) $options['appId'] : $this->siteId;
        $this->timeout = isset($options['timeout']) ? (int) $options['timeout'] : 10;
        $this->onTokens = $options['onTokens'] ?? null;
        $this->verifyOptions = $options;
    }

    /**
     * The claims of a valid access token (sub, aud, client_id, tbl, exp, ...),
     * checked with the published keys as docs/api.md's checklist says.
     * @throws InvalidTokenException when the token is refused (reason() says why)
     * @throws TransportException|ApiException when the key set cannot be fetched,
     *         or issuer/audience were not configured
     */
    public function verifyAccessToken(string $jwt): array
    {
        return $this->verifier()->verify($jwt);
    }

    /** @return array{access_token: ?string, refresh_token: ?string} */
    public function tokens(): array
    {
        return ['access_token' => $this->accessToken, 'refresh_token' => $this->refreshToken];
    }

    public function setTokens(?string $accessToken, ?string $refreshToken, ?string $accountToken = null): void
    {
        $this->accessToken = $accessToken;
        $this->refreshToken = $refreshToken;
        $this->accountToken = $accountToken;
    }

    /** The kept sign-in's account token (aud = svc's issuer), for the passkey calls; null before a sign-in */
    public function accountToken(): ?string
    {
        return $this->accountToken;
    }

    /**
     * Whether the last login()'s password is in the server's breached-password
     * list ([auth] breached_list): the sign-in succeeded, but the user should
     * pick a new password (reply field `password_breached`).
     */
    public function passwordBreached(): bool
    {
        return $this->passwordBreached;
    }

    /** @return array the `token` object: access_token, refresh_token, user {id, email, firstName, lastName, role} */
    public function login(string $email, string $password, ?string $authTable = null): array
    {
        $body = ['email' => $email, 'password' => $password] + $this->appIdField() + $this->tableField($authTable);
        return $this->signIn('/auth/login', $body);
    }

    /**
     * The address to send the browser to for "Sign in with {provider}"
     * (docs/api.md "Sign in with …"): svc runs the flow with the provider
     * and comes back to $returnTo (within the site's reset URLs) with
     * ?code=…, or with error and error_description.
     */
    public function upstreamStartUrl(string $provider, string $returnTo): string
    {
        return $this->baseUrl . '/auth/upstream/' . rawurlencode($provider) . '/start?'
            . http_build_query(['appID' => $this->requireAppId(), 'return_to' => $returnTo]);
    }

    /**
     * Trades the one-time code upstreamStartUrl()'s flow brought back (once,
     * within 60 s) for the login reply (amr ["fed"]); a user with a second
     * factor: SecondFactorRequiredException. A wrong or spent code:
     * ApiException "Invalid or expired code".
     * @return array the `token` object, as login()
     */
    public function upstreamExchange(string $code): array
    {
        return $this->signIn('/auth/upstream/exchange', ['code' => $code]);
    }

    /**
     * Mails a 6-digit sign-in code (the same reply whether or not the
     * address is registered; at most one code per 60 s reaches an address).
     */
    public function emailCode(string $email, ?string $authTable = null): array
    {
        $body = ['email' => $email, 'appID' => $this->requireAppId()] + $this->tableField($authTable);
        return $this->post('/auth/email-code', $body);
    }

    /**
     * Signs in with the code emailCode() mailed (amr ["otp"]; the address
     * counts as verified from now on). A wrong, spent or expired code:
     * UnauthorizedException "Invalid or expired code"; a user with a second
     * factor: SecondFactorRequiredException, finish with verifySecondFactor().
     * @return array the `token` object, as login()
     */
    public function signInWithEmailCode(string $email, string $code, ?string $authTable = null): array
    {
        $body = ['email' => $email, 'appID' => $this->requireAppId(), 'code' => $code] + $this->tableField($authTable);
        return $this->signIn('/auth/email-code/verify', $body);
    }

    /** Marks the address of a verification link verified (the token of its `#token=` fragment). */
    public function verifyEmail(string $token): array
    {
        return $this->post('/auth/verify-email', ['token' => $token]);
    }

    /** Mails a new verification link (the same reply whether or not the address is registered). */
    public function resendVerification(string $email, ?string $authTable = null): array
    {
        $body = ['email' => $email, 'appID' => $this->requireAppId()] + $this->tableField($authTable);
        return $this->post('/auth/verify-email/resend', $body);
    }

    /** A sign-in request whose 401 may ask for the second factor; keeps the tokens. */
    private function signIn(string $path, array $body): array
    {
        $this->passwordBreached = false;
        try {
            $reply = $this->post($path, $body);
            $this->passwordBreached = ($reply['password_breached'] ?? false) === true;
            return $this->keepTokens($reply);
        } catch (UnauthorizedException $e) {
            if (isset($e->body()['mfa_token'])) {
                throw new SecondFactorRequiredException($e->getMessage(), $e->httpStatus(), $e->apiStatus(), $e->body());
            }
            throw $e;
        }
    }

    /**
     * The second step of a login that threw SecondFactorRequiredException: a
     * 6-digit code of the authenticator app, or (with $isRecoveryCode) one of
     * the recovery codes. @return array the `token` object, as login()
     */
    public function verifySecondFactor(string $mfaToken, string $code, bool $isRecoveryCode = false): array
    {
        $body = ['mfa_token' => $mfaToken, $isRecoveryCode ? 'recovery_code' : 'code' => $code];
        return $this->keepTokens($this->post('/auth/mfa/verify', $body));
    }

    /**
     * Passkeys, for a server that relays the WebAuthn ceremonies of its pages
     * (docs/api.md "Passkeys"). The options go to the browser as they are
     * (PublicKeyCredential.parse...OptionsFromJSON); the browser's
     * credential.toJSON() comes back as $credential.
     * @return array ['options' => the creation options, 'challenge_token' => ...]
     */
    public function passkeyRegisterOptions(): array
    {
        $reply = $this->postAccount('/auth/passkey/register/options', []);
        return ['options' => $reply['options'], 'challenge_token' => $reply['challenge_token']];
    }

    /** @return array the stored passkey: id, name, created_at, last_used_at, synced, backed_up */
    public function passkeyRegister(string $challengeToken, array $credential, ?string $name = null): array
    {
        $body = ['challenge_token' => $challengeToken, 'credential' => $credential];
        if ($name !== null) {
            $body['name'] = $name;
        }
        return $this->postAccount('/auth/passkey/register', $body)['passkey'];
    }

    /**
     * Sign-in options for the client's appId (with an e-mail: only that
     * user's passkey will be accepted), or, with $mfaToken, for the second
     * step after SecondFactorRequiredException.
     * @return array ['options' => the request options, 'challenge_token' => ...]
     */
    public function passkeyLoginOptions(?string $email = null, ?string $mfaToken = null): array
    {
        $body = $mfaToken !== null ? ['mfa_token' => $mfaToken] : ['appID' => $this->requireAppId()];
        if ($mfaToken === null && $email !== null) {
            $body['email'] = $email;
        }
        $reply = $this->post('/auth/passkey/login/options', $body);
        return ['options' => $reply['options'], 'challenge_token' => $reply['challenge_token']];
    }

    /** Finishes a passkey sign-in or second step. @return array the `token` object, as login(); keeps the pair */
    public function passkeyLogin(string $challengeToken, array $credential): array
    {
        $body = ['challenge_token' => $challengeToken, 'credential' => $credential];
        return $this->keepTokens($this->post('/auth/passkey/login', $body));
    }

    /** @return array[] the signed-in user's passkeys on the site, oldest first */
    public function passkeys(): array
    {
        return $this->postAccount('/auth/passkey/list', [])['passkeys'];
    }

    /** Renames one of the user's passkeys. @return array the passkey as passkeys() lists it */
    public function renamePasskey(int $id, string $name): array
    {
        return $this->postAccount('/auth/passkey/rename', ['id' => $id, 'name' => $name])['passkey'];
    }

    public function deletePasskey(int $id): void
    {
        $this->postAccount('/auth/passkey/delete', ['id' => $id]);
    }

    /*
     * Account self-service (docs/api.md "Account self-service"), with the
     * account token of the last sign-in. A wrong password throws
     * UnauthorizedException; an address in use ConflictException.
     */

    /** Changes the password; this sign-in stays, every other session ends. */
    public function changePassword(string $currentPassword, string $password, ?string $confirmPassword = null): void
    {
        $this->postAccount('/auth/password/change', ['current_password' => $currentPassword, 'password' => $password,
                                                     'confirmPassword' => $confirmPassword ?? $password]);
    }

    /** Mails a confirmation link to $newEmail and an undo link to the current address. */
    public function changeEmail(string $newEmail, string $password): void
    {
        $this->postAccount('/auth/email/change', ['new_email' => $newEmail, 'password' => $password]);
    }

    /** The token of the confirmation link (its #token=...). */
    public function confirmEmailChange(string $token): void
    {
        $this->post('/auth/email/change/confirm', ['token' => $token]);
    }

    /** The token of the undo link mailed to the old address. */
    public function undoEmailChange(string $token): void
    {
        $this->post('/auth/email/change/undo', ['token' => $token]);
    }

    /** Deletes the account with its password, or a TOTP code; forgets the tokens. */
    public function deleteAccount(?string $password = null, ?string $code = null): void
    {
        $this->postAccount('/auth/account/delete', $code !== null ? ['code' => $code] : ['password' => $password]);
        $this->setTokens(null, null, null);
    }

    /** @return array every row svc holds about the user: profile, sessions, passkeys, audit, mail, ... */
    public function exportAccount(): array
    {
        return $this->postAccount('/auth/account/export', [])['account'];
    }

    /** @return array the `token` object: access_token, refresh_token, user {id, email, firstName, lastName} */
    public function signUp(string $email, string $password, ?string $firstName = null, ?string $lastName = null,
                           ?string $authTable = null): array
    {
        $body = ['email' => $email, 'password' => $password] + $this->appIdField() + $this->tableField($authTable);
        if ($firstName !== null) {
            $body['firstname'] = $firstName;
        }
        if ($lastName !== null) {
            $body['lastname'] = $lastName;
        }
        return $this->keepTokens($this->post('/auth/sign-up', $body));
    }

    /**
     * Renews the kept token pair; the refresh token it held is spent (the
     * server accepts it again for a few seconds only; later it revokes the
     * session), so the new pair replaces both tokens. A refresh token this
     * process already renewed is not sent again: the pair of that renewal is
     * taken instead. A 401 (expired, no longer valid, revoked) drops the pair.
     * @return array the new `token` object
     * @throws UnauthorizedException when the refresh token will not renew again
     */
    public function refresh(): array
    {
        if ($this->refreshToken === null) {
            throw new ApiException('No refresh token: log in first', 0, null, []);
        }
        $spent = $this->refreshToken;
        $known = $this->renewalOf($spent);
        if ($known !== null) {
            $this->holdTokens($known['access_token'], $known['refresh_token'], $this->accountToken);
            return $known;
        }
        $payload = ['access_token' => $this->accessToken ?? '', 'refresh_token' => $spent];
        try {
            $reply = $this->post('/auth/refresh-token', ['payload' => $payload]);
        } catch (UnauthorizedException $e) {
            $this->holdTokens(null, null);
            throw $e;
        }
        $token = $reply['token'];
        self::$renewals[$this->renewalKey($spent)] = ['access_token' => $token['access_token'],
                                                      'refresh_token' => $token['refresh_token']];
        if (count(self::$renewals) > self::RENEWALS_KEPT) {
            array_shift(self::$renewals);
        }
        return $this->keepTokens($reply);
    }

    /**
     * Ends sessions on the server, naming this one by the refresh token and
     * the Bearer access token held: $scope null ends this session, 'others'
     * every other session of the user (this one goes on: the pair is kept),
     * 'global' every session. Unless 'others', the pair is forgotten first,
     * whatever the reply.
     */
    public function signOut(?string $scope = null): void
    {
        if ($scope !== null && $scope !== 'others' && $scope !== 'global') {
            throw new ApiException('scope must be null, "others" or "global"', 0, null, []);
        }
        $headers = $this->accessToken !== null ? ['Authorization: Bearer ' . $this->accessToken] : [];
        $body = $this->refreshToken !== null ? ['refreshToken' => $this->refreshToken] : [];
        if ($scope !== null) {
            $body['scope'] = $scope;
        }
        if ($scope !== 'others') {
            $this->holdTokens(null, null);
        }
        $this->post('/auth/sign-out', $body, $headers);
    }

    /**
     * The user's open sessions, newest first: id, created_at, last_seen_at
     * (unix seconds), ip, user_agent, amr, current (the one of this client's
     * tokens). Sent with the account token, as every account route.
     * @return array[]
     */
    public function sessions(): array
    {
        return $this->postAccount('/auth/sessions', [])['sessions'];
    }

    /**
     * Ends one of the user's sessions (an id from sessions()); ending the
     * client's own session forgets the pair.
     * @throws NotFoundException 404 `Session not found`: unknown, already ended, or another user's
     */
    public function revokeSession(string $id): void
    {
        $mine = self::claims($this->refreshToken ?? $this->accessToken ?? '')['sid'] ?? null;
        $this->postAccount('/auth/sessions/revoke', ['id' => $id]);
        if ($id === $mine) {
            $this->holdTokens(null, null);
        }
    }

    /** Mails a reset link (the same reply whether or not the address is registered). */
    public function requestPass(string $email, ?string $url = null, ?string $authTable = null): array
    {
        $body = ['email' => $email, 'appID' => $this->requireAppId()] + $this->tableField($authTable);
        if ($url !== null) {
            $body['url'] = $url;
        }
        return $this->post('/auth/request-pass', $body);
    }

    public function resetPass(string $resetToken, string $password, ?string $confirmPassword = null,
                              ?string $authTable = null): array
    {
        $body = ['password' => $password, 'confirmPassword' => $confirmPassword ?? $password,
                 'reset_password_token' => $resetToken] + $this->tableField($authTable);
        return $this->post('/auth/reset-pass', $body);
    }

    /** @return array{status: string, email: string, role: string} */
    public function userEmail(string $encryptedUserId): array
    {
        return $this->post('/auth/user-email', ['userId' => $encryptedUserId]);
    }

    public function userSmsCode(string $encryptedUserId): array
    {
        return $this->post('/auth/user-sms-code', ['userId' => $encryptedUserId]);
    }

    public function verifySmsCode(string $encryptedUserId, string $code): array
    {
        return $this->post('/auth/verify-sms-code', ['userId' => $encryptedUserId, 'code' => $code]);
    }

    /** @return int[] the folder ids linked to the user, in link order */
    public function getFolderLimits(int $userId, string $table = 'svc_folders'): array
    {
        $body = ['appID' => $this->requireAppId(), 'table' => $table, 'userId' => $userId];
        $reply = $this->withFreshToken(fn (array $auth) => $this->post('/auth/getFolderLimits', $body, $auth));
        return array_map(fn ($row) => (int) $row['linked'], $reply['data']);
    }

    /**
     * Queues template e-mail `event` of the site.
     * @param array $fields email, data, table, master_id, SQL, setEmailField (see docs/api.md)
     */
    public function notification(string $event, array $fields = []): array
    {
        return $this->post('/message/notification', ['event' => $event] + $fields, $this->siteHeaders());
    }

    public function sendPush(string $encryptedCustomerId, string $message, ?string $title = null, ?array $data = null,
                             ?string $topic = null): array
    {
        $body = ['customerID' => $encryptedCustomerId, 'message' => $message];
        if ($title !== null) {
            $body['title'] = $title;
        }
        if ($data !== null) {
            $body['data'] = (object) $data;
        }
        if ($topic !== null) {
            $body['topic'] = $topic;
        }
        return $this->post('/message/sendPush', $body, $this->siteHeaders());
    }

    private function verifier(): AccessTokenVerifier
    {
        if ($this->verifier === null) {
            $o = $this->verifyOptions;
            if (!isset($o['issuer'], $o['audience']) || $o['issuer'] === '' || $o['audience'] === '') {
                throw new ApiException('issuer and audience are required to verify access tokens', 0, null, []);
            }
            $keys = new JwksCache($o['jwksUrl'] ?? $this->baseUrl . '/.well-known/jwks.json', $o['jwksCache'] ?? null,
                                  JwksCache::curlFetcher($this->timeout));
            try {
                $this->verifier = new AccessTokenVerifier($keys, (string) $o['issuer'], (string) $o['audience'],
                                                          $o['tokenTable'] ?? null, (int) ($o['leeway'] ?? 30));
            } catch (\InvalidArgumentException $e) {
                throw new ApiException($e->getMessage(), 0, null, []);
            }
        }
        return $this->verifier;
    }

    /** Runs $call with the auth headers; renews an expired access token once. */
    private function withFreshToken(callable $call): array
    {
        $renewed = false;
        if ($this->accessToken !== null && $this->refreshToken !== null && self::expired($this->accessToken)) {
            $this->refresh();
            $renewed = true;
        }
        try {
            return $call($this->authHeaders());
        } catch (UnauthorizedException $e) {
            if ($renewed || $this->refreshToken === null) {
                throw $e;
            }
            $this->refresh();
            return $call($this->authHeaders());
        }
    }

    /** True when the JWT's `exp` has passed (30 s early); the server still decides. */
    private static function expired(string $jwt): bool
    {
        $claims = self::claims($jwt);
        return isset($claims['exp']) && (int) $claims['exp'] <= time() + 30;
    }

    /** A JWT's claims, read without checking it ([] when it is no JWT): only to decide what to send. */
    private static function claims(string $jwt): array
    {
        $parts = explode('.', $jwt);
        if (count($parts) !== 3) {
            return [];
        }
        $claims = json_decode((string) base64_decode(strtr($parts[1], '-_', '+/'), false), true);
        return is_array($claims) ? $claims : [];
    }

    /** The pair this process's renewals of $refreshToken (and of its successors) got; null when none did. */
    private function renewalOf(string $refreshToken): ?array
    {
        $pair = null;
        $token = $refreshToken;
        while (isset(self::$renewals[$this->renewalKey($token)])) {
            $pair = self::$renewals[$this->renewalKey($token)];
            $token = $pair['refresh_token'];
        }
        return $pair;
    }

    private function renewalKey(string $refreshToken): string
    {
        return hash('sha256', $this->baseUrl . "\n" . $refreshToken);
    }

    private function authHeaders(): array
    {
        $headers = $this->accessToken !== null ? ['Authorization: Bearer ' . $this->accessToken] : [];
        if ($this->siteKey !== null && $this->siteId !== null && $this->siteId === $this->appId) {
            $headers = array_merge($headers, $this->siteHeaders());
        }
        return $headers;
    }

    private function siteHeaders(): array
    {
        if ($this->siteId === null) {
            throw new ApiException('siteId is required for messaging', 0, null, []);
        }
        $headers = ['site-id: ' . $this->siteId];
        if ($this->siteKey !== null) {
            $headers[] = 'x-site-key: ' . $this->siteKey;
        }
        return $headers;
    }

    private function appIdField(): array
    {
        return $this->appId !== null ? ['appID' => $this->appId] : [];
    }

    private function requireAppId(): int
    {
        if ($this->appId === null) {
            throw new ApiException('appId (or siteId) is required for this call', 0, null, []);
        }
        return $this->appId;
    }

    private function tableField(?string $authTable): array
    {
        return $authTable !== null ? ['authTable' => $authTable] : [];
    }

    /** A refresh reply has no account token: the sign-in's stays. */
    private function keepTokens(array $reply): array
    {
        $token = $reply['token'];
        $this->holdTokens($token['access_token'], $token['refresh_token'], $token['account_token'] ?? $this->accountToken);
        return $token;
    }

    /** POSTs to an account route with the account token (no renewal: a refresh yields none). */
    private function postAccount(string $path, array $body): array
    {
        $headers = $this->accountToken !== null ? ['Authorization: Bearer ' . $this->accountToken] : [];
        return $this->post($path, $body, $headers);
    }

    /** Takes (or drops, with nulls) the pair and tells the onTokens callback. */
    private function holdTokens(?string $accessToken, ?string $refreshToken, ?string $accountToken = null): void
    {
        $this->setTokens($accessToken, $refreshToken, $accountToken);
        if ($this->onTokens !== null) {
            ($this->onTokens)($accessToken, $refreshToken);
        }
    }

    /** POSTs JSON; returns the body of a 200 Success, else throws (see the class comment). */
    private function post(string $path, array $body, array $headers = []): array
    {
        $curl = curl_init($this->baseUrl . $path);
        curl_setopt_array($curl, [
            CURLOPT_POST => true,
            CURLOPT_POSTFIELDS => json_encode((object) $body, JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR),
            CURLOPT_HTTPHEADER => array_merge(['Content-Type: application/json', 'Accept: application/json'], $headers),
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => $this->timeout,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
        ]);
        $raw = curl_exec($curl);
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        $error = curl_error($curl);
        curl_close($curl);
        if ($raw === false || $status === 0) {
            throw new TransportException('svc unreachable: ' . $error, 0, null, []);
        }
        $reply = json_decode((string) $raw, true);
        if (!is_array($reply)) {
            throw new ApiException('Reply is not JSON', $status, null, []);
        }
        if ($status === 200 && ($reply['status'] ?? null) === 'Success') {
            return $reply;
        }
        throw ApiException::fromReply($status, $reply);
    }
}
