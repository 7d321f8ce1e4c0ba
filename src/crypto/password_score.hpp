#pragma once
// The zxcvbn strength score of a password (Debian's libzxcvbn, the C port
// of Dropbox's zxcvbn; docs/decisions.md "Issue 41: the zxcvbn score"): 0
// (guessed in under 10^3 tries) to 4 (10^10 or more), from the estimate's
// entropy in bits with zxcvbn's own thresholds. `user_words` (the user's
// e-mail, names) count as dictionary words, each whole and each run of 3+
// letters and digits in it, so "alice1990!" scores low for
// alice@example.com. Pure: no I/O, no network, no state; thread-safe.

#include <cstddef>
#include <string_view>
#include <vector>

namespace svc::crypto {

inline constexpr int kMaxPasswordScore = 4;
// How much of a password is scored: zxcvbn's work grows steeply with the
// length (about 30 ms for 32 bytes, seconds for 100 of a repeated pattern),
// and a sign-up needs no sign-in, so only this prefix is scored. A prefix
// scores at most what the whole would, so the cut can only refuse more.
inline constexpr size_t kScoredBytes = 32;

// The part of `password` that is scored: its first kScoredBytes bytes, cut
// back to the start of a UTF-8 character.
std::string_view scored_prefix(std::string_view password);

// zxcvbn's score of a guess estimate of 2^bits guesses.
int score_of_bits(double bits);

// The score of scored_prefix(password). A NUL in the password ends what
// zxcvbn sees (its API takes C strings): the part after it is not scored,
// which can only lower the score.
int password_score(std::string_view password, const std::vector<std::string_view>& user_words = {});

}  // namespace svc::crypto
