// The routes flagged kHashing in app::routes() are the ones nginx sends to
// svc-fcgi's second worker pool (upstream svc_fcgi_hashing) and the ones the
// benchmark attributes to that pool. The route table cannot tell nginx, so
// this test reads the nginx files of the source tree (SVC_SOURCE_DIR) and
// fails when the three lists drift apart.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/routes.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::set<std::string> hashing_route_paths() {
  std::set<std::string> out;
  for (const auto& r : svc::app::routes()) {
    if (r.flags & svc::http::kHashing) out.insert(r.path);
  }
  return out;
}

struct HashingLocation {
  std::string file;
  std::string pattern;  // the regex after "location ~"
};

// Every `location ~ REGEX { ... fastcgi_pass svc_fcgi_hashing; ... }` in the
// nginx configuration files under nginx/ and bench/.
std::vector<HashingLocation> hashing_locations() {
  static const std::regex kLocation(R"(location\s+~\s+(\S+)\s*\{([^}]*)\})");
  static const std::regex kHashingPass(R"(fastcgi_pass\s+svc_fcgi_hashing\s*;)");
  std::vector<HashingLocation> out;
  for (const char* dir : {"nginx", "bench"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SVC_SOURCE_DIR) / dir)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".conf") && !name.ends_with(".conf.in")) continue;
      const std::string text = read_file(entry.path());
      for (std::sregex_iterator m(text.begin(), text.end(), kLocation), end; m != end; ++m) {
        if (std::regex_search((*m)[2].str(), kHashingPass)) out.push_back({entry.path().string(), (*m)[1].str()});
      }
    }
  }
  return out;
}

// The alternatives of a pattern written as ^/auth/(?:a|b|c)$, as full paths.
std::set<std::string> listed_paths(const std::string& pattern) {
  static const std::regex kShape(R"(\^/auth/\(\?:([A-Za-z/-]+(?:\|[A-Za-z/-]+)*)\)\$)");
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_match(pattern, m, kShape),
                        "write the hashing location as ^/auth/(?:name|name)$ (or teach this test): " << pattern);
  std::set<std::string> out;
  std::stringstream names(m[1].str());
  for (std::string name; std::getline(names, name, '|');) out.insert("/auth/" + name);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(hashing_routes_test)

BOOST_AUTO_TEST_CASE(route_table_flags_the_argon2id_routes) {
  const std::set<std::string> expected{"/auth/login",          "/auth/sign-up",         "/auth/reset-pass",
                                       "/auth/mfa/disable",    "/auth/password/change", "/auth/email/change",
                                       "/auth/account/delete", "/auth/oidc/sign-in",    "/auth/oidc/register"};
  BOOST_TEST(hashing_route_paths() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nginx_sends_exactly_the_flagged_routes_to_the_hashing_pool) {
  const std::vector<HashingLocation> locations = hashing_locations();
  BOOST_TEST_REQUIRE(!locations.empty(), "no location passes to svc_fcgi_hashing under nginx/ or bench/");
  const std::set<std::string> flagged = hashing_route_paths();
  for (const HashingLocation& loc : locations) {
    BOOST_TEST_CONTEXT(loc.file << ": location ~ " << loc.pattern) {
      BOOST_TEST(listed_paths(loc.pattern) == flagged, boost::test_tools::per_element());
      // And the pattern, run as nginx runs it, agrees row by row.
      const std::regex re(loc.pattern);
      for (const auto& r : svc::app::routes()) {
        BOOST_TEST_CONTEXT(r.path) {
          BOOST_TEST(std::regex_search(std::string(r.path), re) == bool(r.flags & svc::http::kHashing));
          BOOST_TEST(!std::regex_search(std::string(r.path) + "/", re));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(benchmark_attributes_the_flagged_routes_to_the_hashing_pool) {
  const std::string bench = read_file(fs::path(SVC_SOURCE_DIR) / "bench" / "stack.py");
  std::smatch m;
  BOOST_TEST_REQUIRE(std::regex_search(bench, m, std::regex(R"(HASHING_PATHS = \(([^)]*)\))")),
                     "bench/stack.py: HASHING_PATHS = (...) not found");
  std::set<std::string> listed;
  const std::string items = m[1].str();
  const std::regex kQuoted("\"([^\"]*)\"");
  for (std::sregex_iterator q(items.begin(), items.end(), kQuoted), end; q != end; ++q) listed.insert((*q)[1].str());
  BOOST_TEST(listed == hashing_route_paths(), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
