#pragma once
// The zxcvbn strength score of a password (Debian's libzxcvbn, the C port
// of Dropbox's zxcvbn; docs/decisions.md "Issue 41: the zxcvbn score"): 0
// (guessed in under 10^3 tries) to 4 (10^10 or more), from the estimate's
// entropy in bits with zxcvbn's own thresholds. `user_words` (the user's
// e-mail, names) count as dictionary words, each whole and each run of 3+
// letters and digits in it, so "alice1990!" scores low for
// alice@example.com. Pure: no I/O, no network, no state; thread-safe.

#include <string_view>
#include <vector>

namespace svc::crypto {

inline constexpr int kMaxPasswordScore = 4;

// zxcvbn's score of a guess estimate of 2^bits guesses.
int score_of_bits(double bits);

// The score of `password`. A NUL in the password ends what zxcvbn sees
// (its API takes C strings): the part after it is not scored, which can
// only lower the score.
int password_score(std::string_view password, const std::vector<std::string_view>& user_words = {});

}  // namespace svc::crypto
