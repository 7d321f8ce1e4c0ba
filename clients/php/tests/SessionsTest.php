<?php

declare(strict_types=1);

namespace Svc\Client\Tests;

use PHPUnit\Framework\TestCase;
use Svc\Client\ApiException;
use Svc\Client\Client;
use Svc\Client\NotFoundException;
use Svc\Client\UnauthorizedException;

require_once __DIR__ . '/Stack.php';

/**
 * Sessions through the client (docs/api.md "Sessions"): renewal with rotating
 * refresh tokens, the list, revoking one, and the sign-out scopes. Against
 * the stack ctest started. The reuse grace ([tokens] refresh_reuse_seconds)
 * is passed by moving the session's rotated_at back in MariaDB, never by
 * sleeping.
 */
final class SessionsTest extends TestCase
{
    private const PASSWORD = 'Session@Php37';
    private const REVOKED = [401, 'Refresh token has been revoked'];

    private static function client(array $options = []): Client
    {
        return new Client(Stack::base(), $options + ['siteId' => 1, 'siteKey' => Stack::env()['SITE_KEY'] ?? '']);
    }

    /** A new user signed up through a new client: [client, email, user id]. */
    private static function signedUp(array $options = []): array
    {
        $email = sprintf('php-session.%d.%s@example.com', getmypid(), bin2hex(random_bytes(4)));
        $svc = self::client($options);
        $token = $svc->signUp($email, self::PASSWORD);
        return [$svc, $email, (int) $token['user']['id']];
    }

    /** Another client signed in as $email: another session of the same user. */
    private static function signedIn(string $email): Client
    {
        $svc = self::client();
        $svc->login($email, self::PASSWORD);
        return $svc;
    }

    private static function sid(Client $svc): string
    {
        return Stack::claims((string) $svc->tokens()['refresh_token'])['sid'];
    }

    /** An access token whose exp has passed: the client renews before sending it (its signature is never checked). */
    private static function expiredAccessToken(): string
    {
        $claims = rtrim(strtr(base64_encode(json_encode(['sub' => '1', 'exp' => time() - 60])), '+/', '-_'), '=');
        return 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' . $claims . '.c2lnbmF0dXJl';
    }

    /** Moves the session's last rotation an hour back: its previous refresh token is past the grace. */
    private static function pastTheGrace(string $sid): void
    {
        Stack::sql("UPDATE svc_sessions SET rotated_at = rotated_at - 3600 WHERE id = '" . $sid . "'");
    }

    /** [revoked?, revoked_reason] of a session row. */
    private static function sessionState(string $sid): array
    {
        $rows = Stack::sql("SELECT revoked_at IS NOT NULL, revoked_reason FROM svc_sessions WHERE id = '" . $sid . "'");
        return [$rows[0][0] === '1', $rows[0][1]];
    }

    /** A refresh-token request past the client: [status, body]. */
    private static function rawRefresh(string $refreshToken): array
    {
        return Stack::post('/auth/refresh-token', ['payload' => ['access_token' => 'unused-access-token', 'refresh_token' => $refreshToken]]);
    }

    private function assertRefreshRefused(Client $svc): void
    {
        try {
            $svc->refresh();
            $this->fail('the refresh token of an ended session still renews');
        } catch (UnauthorizedException $e) {
            $this->assertSame(self::REVOKED, [$e->httpStatus(), $e->getMessage()]);
        }
    }

    public function testRenewalKeepsTheRotatedPairAndTheSpentTokenWorksOnlyWithinTheGrace(): void
    {
        $kept = [];
        [$svc, , $userId] = self::signedUp(['onTokens' => function (?string $access, ?string $refresh) use (&$kept) {
            $kept[] = [$access, $refresh];
        }]);
        $first = $svc->tokens();
        $sid = self::sid($svc);

        // The automatic renewal of an expired access token rotates the refresh token.
        $svc->setTokens(self::expiredAccessToken(), $first['refresh_token']);
        $this->assertSame([], $svc->getFolderLimits($userId));
        $renewed = $svc->tokens();
        $this->assertNotSame($first['refresh_token'], $renewed['refresh_token']);
        $this->assertSame(['sid' => $sid, 'gen' => 2], array_intersect_key(Stack::claims($renewed['refresh_token']),
                                                                            ['sid' => 0, 'gen' => 0]));
        // The caller's store got the rotated pair (the spent token would revoke the session later).
        $this->assertSame([$renewed['access_token'], $renewed['refresh_token']], end($kept));

        // The spent token played back within the grace gets a pair of the same session ...
        [$status, $grace] = self::rawRefresh($first['refresh_token']);
        $this->assertSame(200, $status, json_encode($grace));
        $this->assertSame($sid, Stack::claims($grace['token']['refresh_token'])['sid']);
        // ... and after it, it is a reuse: refused, and the whole session ends.
        self::pastTheGrace($sid);
        $this->assertSame([401, ['status' => 'Failed', 'message' => 'Refresh token has been revoked']],
                          self::rawRefresh($first['refresh_token']));
        $this->assertSame([true, 'reuse'], self::sessionState($sid));

        // The client's next renewal is refused once: it drops its pair and throws, no loop.
        $svc->setTokens(self::expiredAccessToken(), $renewed['refresh_token']);
        try {
            $svc->getFolderLimits($userId);
            $this->fail('a revoked session renewed its access token');
        } catch (UnauthorizedException $e) {
            $this->assertSame(self::REVOKED, [$e->httpStatus(), $e->getMessage()]);
        }
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $svc->tokens());
        $this->assertSame([null, null], end($kept));
    }

    public function testTwoClientsOfOneProcessRenewTheSameStoredPairOnce(): void
    {
        // Two objects of one PHP request built from the same stored pair (two
        // libraries of a page, say): the second must not replay the spent token.
        [$a, , $userId] = self::signedUp();
        $stored = $a->tokens();
        $b = self::client();
        $a->setTokens(self::expiredAccessToken(), $stored['refresh_token']);
        $b->setTokens(self::expiredAccessToken(), $stored['refresh_token']);

        $this->assertSame([], $a->getFolderLimits($userId));
        self::pastTheGrace(self::sid($a));
        $this->assertSame([], $b->getFolderLimits($userId));
        $this->assertSame($a->tokens(), $b->tokens());
        $this->assertSame([false, ''], self::sessionState(self::sid($a)));
        // The pair both hold is the session's current one.
        $this->assertNotSame($stored['refresh_token'], $b->refresh()['refresh_token']);
    }

    public function testSessionsListsTheCurrentOneMarkedCurrent(): void
    {
        [$svc, $email] = self::signedUp();
        $other = self::signedIn($email);

        $sessions = $svc->sessions();
        $this->assertCount(2, $sessions);
        $this->assertSame(['id', 'created_at', 'last_seen_at', 'ip', 'user_agent', 'amr', 'current'], array_keys($sessions[0]));
        $current = array_column($sessions, 'current', 'id');
        ksort($current);
        $expected = [self::sid($svc) => true, self::sid($other) => false];
        ksort($expected);
        $this->assertSame($expected, $current);
        $this->assertSame(['pwd'], array_column($sessions, 'amr', 'id')[self::sid($other)]);
    }

    public function testRevokeSessionEndsAnotherAndAnUnknownIdIsNotFound(): void
    {
        [$svc, $email] = self::signedUp();
        $other = self::signedIn($email);
        $otherSid = self::sid($other);

        $svc->revokeSession($otherSid);
        $this->assertSame([true, 'user'], self::sessionState($otherSid));
        $this->assertSame([self::sid($svc)], array_column($svc->sessions(), 'id'));
        $this->assertRefreshRefused($other);
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $other->tokens());

        foreach ([$otherSid, 'AAAAAAAAAAAAAAAAAAAAAA'] as $id) {
            try {
                $svc->revokeSession($id);
                $this->fail('revoking ' . $id . ' succeeded');
            } catch (NotFoundException $e) {
                $this->assertSame([404, 'Failed', 'Session not found'], [$e->httpStatus(), $e->apiStatus(), $e->getMessage()]);
            }
        }

        // Revoking its own session leaves the client signed out.
        $svc->revokeSession(self::sid($svc));
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $svc->tokens());
    }

    public function testSignOutScopes(): void
    {
        [$svc, $email] = self::signedUp();
        $second = self::signedIn($email);
        $third = self::signedIn($email);

        // others: every other session ends; this one goes on, tokens kept.
        $svc->signOut('others');
        $this->assertNotNull($svc->tokens()['refresh_token']);
        $this->assertSame([self::sid($svc)], array_column($svc->sessions(), 'id'));
        $this->assertRefreshRefused($second);
        $this->assertRefreshRefused($third);
        $svc->refresh();

        // A scope the server does not know is refused before anything is sent or forgotten.
        try {
            $svc->signOut('everywhere');
            $this->fail('an unknown scope was sent');
        } catch (ApiException $e) {
            $this->assertSame(0, $e->httpStatus());
        }
        $this->assertNotNull($svc->tokens()['refresh_token']);

        // global: every session, this one too; the tokens are forgotten.
        $fourth = self::signedIn($email);
        $held = $svc->tokens()['refresh_token'];
        $svc->signOut('global');
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $svc->tokens());
        [$status, $reply] = self::rawRefresh($held);
        $this->assertSame(self::REVOKED, [$status, $reply['message']]);
        $this->assertRefreshRefused($fourth);

        // No scope: this session only.
        $fifth = self::signedIn($email);
        $sixth = self::signedIn($email);
        $held = $fifth->tokens()['refresh_token'];
        $fifth->signOut();
        $this->assertSame(['access_token' => null, 'refresh_token' => null], $fifth->tokens());
        $this->assertSame(401, self::rawRefresh($held)[0]);
        $this->assertSame([self::sid($sixth)], array_column($sixth->sessions(), 'id'));
    }
}
