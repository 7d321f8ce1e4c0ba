// The zxcvbn score (crypto/password_score.hpp): known weak passwords score
// low, long random ones 4, the user's own words count against a password,
// and the entropy-to-score thresholds are zxcvbn's.
#include "crypto/password_score.hpp"

#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

using svc::crypto::kScoredBytes;
using svc::crypto::password_score;
using svc::crypto::score_of_bits;
using svc::crypto::scored_prefix;

BOOST_AUTO_TEST_SUITE(password_score_test)

BOOST_AUTO_TEST_CASE(known_weak_passwords_score_low) {
  // Each passes the spec's five rules (upper, lower, digit, special, 8+).
  for (const char* weak : {"Password1!", "P@ssw0rd123", "Qwerty123!", "Welcome1!", "Aa1!aaaa"}) {
    BOOST_TEST_CONTEXT(weak) { BOOST_TEST(password_score(weak) <= 2); }
  }
  BOOST_TEST(password_score("Password1!") <= 1);
  BOOST_TEST(password_score("") == 0);
  BOOST_TEST(password_score("aaaaaaaa") == 0);
}

BOOST_AUTO_TEST_CASE(known_strong_passwords_score_four) {
  for (const char* strong : {"correct horse battery staple", "kR7#vq2!Lm9zXw", "Xk9#mP2$vL7q", "Tr0ub4dor&3-v8#Qz"}) {
    BOOST_TEST_CONTEXT(strong) { BOOST_TEST(password_score(strong) == 4); }
  }
}

BOOST_AUTO_TEST_CASE(the_users_own_words_lower_the_score) {
  const std::string password = "Zanzibarquist7!";
  BOOST_TEST(password_score(password) >= 3);
  BOOST_TEST(password_score(password, {"zanzibarquist.7@example.com"}) < password_score(password));
  BOOST_TEST(password_score(password, {"Ada", "someone@example.com"}) == password_score(password));
}

BOOST_AUTO_TEST_CASE(bits_map_to_zxcvbns_thresholds) {
  // 10^3 guesses = 9.97 bits, 10^6 = 19.93, 10^8 = 26.58, 10^10 = 33.22.
  BOOST_TEST(score_of_bits(0) == 0);
  BOOST_TEST(score_of_bits(9.9) == 0);
  BOOST_TEST(score_of_bits(10.0) == 1);
  BOOST_TEST(score_of_bits(19.9) == 1);
  BOOST_TEST(score_of_bits(20.0) == 2);
  BOOST_TEST(score_of_bits(26.5) == 2);
  BOOST_TEST(score_of_bits(26.6) == 3);
  BOOST_TEST(score_of_bits(33.2) == 3);
  BOOST_TEST(score_of_bits(33.3) == 4);
  BOOST_TEST(score_of_bits(200) == 4);
}

BOOST_AUTO_TEST_CASE(a_longest_password_is_scored_quickly_enough_to_be_called) {
  // 1024 bytes, the longest any endpoint accepts: it must return (and it is
  // a strong password).
  std::string longest;
  for (int i = 0; longest.size() < 1024; ++i) longest += static_cast<char>('!' + (i * 37) % 90);
  longest.resize(1024);
  BOOST_TEST(password_score(longest) == 4);
}

// Issue 48: zxcvbn's work grows steeply with the length ("12" x 60 took
// 2.5 s of a worker), so only a bounded prefix is scored; no stopwatch here:
// what is scored is the prefix, and the prefix is bounded.
BOOST_AUTO_TEST_CASE(only_a_bounded_prefix_is_scored) {
  std::string pattern;
  for (int i = 0; i < 60; ++i) pattern += "12";
  BOOST_TEST(scored_prefix(pattern).size() == kScoredBytes);
  BOOST_TEST(scored_prefix(pattern) == pattern.substr(0, kScoredBytes));
  BOOST_TEST(password_score(pattern) == password_score(pattern.substr(0, kScoredBytes)));
  BOOST_TEST(scored_prefix("Short@1a") == "Short@1a");
  // A weak start is judged weak whatever follows it.
  const std::string weak_start = "Aa1!" + pattern;
  BOOST_TEST(password_score(weak_start) == password_score(weak_start.substr(0, kScoredBytes)));
  BOOST_TEST(password_score(weak_start) <= 2);
}

BOOST_AUTO_TEST_CASE(the_prefix_never_cuts_a_character_in_two) {
  // "\u00e9" is two bytes: 31 ASCII bytes and an e-acute end at byte 33.
  const std::string text = std::string(kScoredBytes - 1, 'a') + "\u00e9" + "tail";
  BOOST_TEST(scored_prefix(text) == std::string(kScoredBytes - 1, 'a'));
  const std::string exact = std::string(kScoredBytes - 2, 'a') + "\u00e9" + "tail";
  BOOST_TEST(scored_prefix(exact) == exact.substr(0, kScoredBytes));
}

BOOST_AUTO_TEST_SUITE_END()
