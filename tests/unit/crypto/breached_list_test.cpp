// The breached-password list (crypto/breached_file.hpp, breached_import.hpp,
// breached_list.hpp): a list built here from generated passwords, imported
// the way svc-admin does, then every listed password found (the first and
// last lines of the file among them), misses missed, and malformed inputs
// refused with the old list kept.
//
// 2,000,000 lines (about 90 MB of text in the temp folder): the property
// does not depend on the size, and a few seconds on a busy machine is what
// make test can spend; the 100-million-entry list is the benchmark's.
#include "crypto/breached_list.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "crypto/breached_file.hpp"
#include "crypto/breached_import.hpp"
#include "crypto/encoding.hpp"

using namespace svc::crypto;
namespace fs = std::filesystem;

namespace {

constexpr size_t kLines = 2'000'000;

std::string upper_hex_sha1(const std::string& password) {
  std::string hex = sha1_hex(password);
  for (char& c : hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return hex;
}

struct Line {
  std::string hash;
  unsigned count;
  std::string password;
};

// kLines passwords "listed-<i>" with counts 1..10, ordered by hash as the
// download is.
const std::vector<Line>& corpus() {
  static const std::vector<Line> lines = [] {
    std::vector<Line> out;
    out.reserve(kLines);
    for (size_t i = 0; i < kLines; ++i) {
      std::string password = "listed-" + std::to_string(i);
      out.push_back({upper_hex_sha1(password), static_cast<unsigned>(i % 10 + 1), password});
    }
    std::sort(out.begin(), out.end(), [](const Line& a, const Line& b) { return a.hash < b.hash; });
    return out;
  }();
  return lines;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("svc-breached-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const char* name) const { return (path / name).string(); }
};

void write_text(const std::string& path, const std::vector<Line>& lines, const char* eol = "\r\n") {
  std::ofstream out(path, std::ios::binary);
  for (const auto& l : lines) out << l.hash << ':' << l.count << eol;
}

BreachedImportOptions options(uint64_t min_count = 1) {
  BreachedImportOptions o;
  o.min_count = min_count;
  o.now = 1700000000;
  return o;
}

// A lookup's answer in words (std::optional does not print).
std::string verdict(std::optional<bool> listed) { return !listed ? "no list" : *listed ? "listed" : "not listed"; }

BreachedFile open_list(const std::string& path) {
  std::string error;
  auto file = BreachedFile::open(path, error);
  BOOST_REQUIRE_MESSAGE(file, error);
  return std::move(*file);
}

// Drops `path` from the page cache; then the pages of it still there
// (mincore through a mapping of its own).
size_t resident_after_drop(const std::string& path, bool drop) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  if (drop) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  const size_t size = fs::file_size(path);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  BOOST_REQUIRE(map != MAP_FAILED);
  std::vector<unsigned char> in((size + 4095) / 4096);
  ::mincore(map, size, in.data());
  ::munmap(map, size);
  return static_cast<size_t>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }));
}

size_t resident_pages(const std::string& path) { return resident_after_drop(path, false); }

}  // namespace

BOOST_AUTO_TEST_SUITE(breached_list_test)

BOOST_AUTO_TEST_CASE(every_listed_password_is_found_and_others_are_not) {
  TempDir dir;
  write_text(dir.file("pwned.txt"), corpus());
  const auto result = import_breached(dir.file("pwned.txt"), dir.file("list.bin"), options());
  BOOST_TEST(result.lines == kLines);
  BOOST_TEST(result.entries == kLines);
  BreachedFile list = open_list(dir.file("list.bin"));
  BOOST_TEST(list.header().count == kLines);
  BOOST_TEST(list.header().source_size == fs::file_size(dir.file("pwned.txt")));
  BOOST_TEST(list.header().created_at == 1700000000);
  // Version 2: a header page, the entries padded to whole pages, then the
  // page index (one key per 512 entries).
  BOOST_TEST(list.header().version == 2u);
  BOOST_TEST(list.header().index_offset == 4096 + (8 * kLines + 4095) / 4096 * 4096);
  BOOST_TEST(fs::file_size(dir.file("list.bin")) == list.header().index_offset + 8 * ((kLines + 511) / 512));

  // The first and the last lines of the file, then every one.
  BOOST_TEST(list.contains_password(corpus().front().password));
  BOOST_TEST(list.contains_password(corpus().back().password));
  size_t missing = 0;
  for (const auto& l : corpus()) missing += list.contains_password(l.password) ? 0 : 1;
  BOOST_TEST(missing == 0u);
  size_t false_hits = 0;
  for (size_t i = 0; i < 200'000; ++i) false_hits += list.contains_password("unlisted-" + std::to_string(i)) ? 1 : 0;
  BOOST_TEST(false_hits == 0u);
  // Below the first key and above the last one.
  BOOST_TEST(!list.contains(0));
  BOOST_TEST(!list.contains(~0ULL));
}

BOOST_AUTO_TEST_CASE(min_count_leaves_out_rarer_passwords) {
  TempDir dir;
  const std::vector<Line> some(corpus().begin(), corpus().begin() + 1000);
  write_text(dir.file("pwned.txt"), some, "\n");
  const auto result = import_breached(dir.file("pwned.txt"), dir.file("list.bin"), options(6));
  BOOST_TEST(result.lines == 1000u);
  BreachedFile list = open_list(dir.file("list.bin"));
  BOOST_TEST(list.header().min_count == 6u);
  for (const auto& l : some) {
    BOOST_TEST_CONTEXT(l.password << " count " << l.count) {
      BOOST_TEST(list.contains_password(l.password) == (l.count >= 6));
    }
  }
  BOOST_TEST(result.entries == list.header().count);
}

BOOST_AUTO_TEST_CASE(bad_inputs_are_refused_and_the_old_list_is_kept) {
  TempDir dir;
  const std::vector<Line> some(corpus().begin(), corpus().begin() + 100);
  write_text(dir.file("good.txt"), some);
  import_breached(dir.file("good.txt"), dir.file("list.bin"), options());
  struct stat before {};
  ::stat(dir.file("list.bin").c_str(), &before);

  std::vector<Line> unsorted = some;
  std::swap(unsorted[40], unsorted[41]);
  write_text(dir.file("unsorted.txt"), unsorted);
  {  // cut in the middle of the last line's hash
    write_text(dir.file("truncated.txt"), some);
    fs::resize_file(dir.file("truncated.txt"), fs::file_size(dir.file("truncated.txt")) - 30);
  }
  {  // the last line lost its end of line (its count may be cut short)
    write_text(dir.file("no-eol.txt"), some);
    fs::resize_file(dir.file("no-eol.txt"), fs::file_size(dir.file("no-eol.txt")) - 2);
  }
  { std::ofstream(dir.file("garbage.txt")) << some[0].hash << ":1\nnot a hash line\n"; }
  const std::pair<const char*, const char*> cases[] = {{"unsorted.txt", "line 42: not ordered by hash"},
                                                       {"truncated.txt", "line 100: "},
                                                       {"no-eol.txt", "line 100: truncated"},
                                                       {"garbage.txt", "line 2: "},
                                                       {"absent.txt", "absent.txt"}};
  for (const auto& [name, expected] : cases) {
    BOOST_TEST_CONTEXT(name) {
      try {
        import_breached(dir.file(name), dir.file("list.bin"), options());
        BOOST_FAIL("imported");
      } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(expected) != std::string::npos, e.what());
      }
      struct stat after {};
      ::stat(dir.file("list.bin").c_str(), &after);
      BOOST_TEST(after.st_ino == before.st_ino);
      BOOST_TEST(!fs::exists(dir.file("list.bin.tmp")));
      BOOST_TEST(open_list(dir.file("list.bin")).contains_password(some[99].password));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_replaced_list_is_picked_up_within_a_second) {
  TempDir dir;
  const std::vector<Line> first(corpus().begin(), corpus().begin() + 10);
  const std::vector<Line> second(corpus().begin() + 10, corpus().begin() + 20);
  BreachedList list(dir.file("list.bin"));
  BOOST_TEST(list.configured());
  BOOST_TEST(verdict(list.listed(first[0].password, 100)) == "no list");  // configured, not there yet

  write_text(dir.file("a.txt"), first);
  import_breached(dir.file("a.txt"), dir.file("list.bin"), options());
  BOOST_TEST(verdict(list.listed(first[0].password, 100)) == "no list");  // checked at second 100 already
  BOOST_TEST(verdict(list.listed(first[0].password, 101)) == "listed");
  BOOST_TEST(verdict(list.listed(second[0].password, 101)) == "not listed");

  write_text(dir.file("b.txt"), second);
  import_breached(dir.file("b.txt"), dir.file("list.bin"), options());
  BOOST_TEST(verdict(list.listed(second[0].password, 102)) == "listed");
  BOOST_TEST(verdict(list.listed(first[0].password, 102)) == "not listed");

  fs::remove(dir.file("list.bin"));
  BOOST_TEST(verdict(list.listed(second[0].password, 103)) == "no list");

  BreachedList none("");
  BOOST_TEST(!none.configured());
  BOOST_TEST(verdict(none.listed(first[0].password, 100)) == "no list");
}

// Keys written straight through BreachedWriter (no text): every count
// around the page size, and keys bunched far from uniform, where the
// interpolation guess is wrong and the galloping search must still land.
BOOST_AUTO_TEST_CASE(a_lookup_reads_the_one_page_its_key_is_on_whatever_the_keys) {
  TempDir dir;
  const auto spread = [](size_t n) {
    std::vector<uint64_t> keys;
    for (size_t i = 0; i < n; ++i) keys.push_back(0x0100000000000000ULL + i * 0x0000100000000003ULL);
    return keys;
  };
  const auto bunched = [](size_t n) {  // half packed at the bottom, half at the top
    std::vector<uint64_t> keys;
    for (size_t i = 0; i < n / 2; ++i) keys.push_back(1000 + 7 * i);
    for (size_t i = n / 2; i < n; ++i) keys.push_back(~0ULL - 7 * (n - i));
    return keys;
  };
  for (size_t n : {1u, 2u, 511u, 512u, 513u, 1024u, 1025u, 5000u}) {
    for (const auto& keys : {spread(n), bunched(n)}) {
      BOOST_TEST_CONTEXT("n " << n << ", first key " << keys.front()) {
        {
          BreachedWriter writer(dir.file("keys.bin"));
          for (uint64_t k : keys) writer.add(k);
          writer.commit(BreachedHeader{});
        }
        BreachedFile list = open_list(dir.file("keys.bin"));
        BOOST_TEST(list.header().count == keys.size());
        BOOST_TEST(fs::file_size(dir.file("keys.bin")) == breached_file_size(keys.size()));
        size_t wrong_page = 0, missing = 0, false_hits = 0;
        for (size_t i = 0; i < keys.size(); ++i) {
          wrong_page += list.page_of(keys[i]) == std::optional<size_t>(i / 512) ? 0 : 1;
          missing += list.contains(keys[i]) ? 0 : 1;
          false_hits += list.contains(keys[i] + 1) ? 1 : 0;  // between two keys, or above the last
        }
        BOOST_TEST(wrong_page == 0u);
        BOOST_TEST(missing == 0u);
        BOOST_TEST(false_hits == 0u);
        BOOST_TEST(!list.contains(keys.front() - 1));
        BOOST_TEST(!list.page_of(keys.front() - 1).has_value());
      }
    }
  }
  BreachedWriter empty(dir.file("empty.bin"));
  empty.commit(BreachedHeader{});
  BOOST_TEST(!open_list(dir.file("empty.bin")).contains(0));
}

BOOST_AUTO_TEST_CASE(a_version_1_list_still_answers_and_a_damaged_file_is_refused) {
  TempDir dir;
  std::vector<uint64_t> keys;
  for (size_t i = 0; i < 3000; ++i) keys.push_back(breached_key(corpus()[i].password));
  std::sort(keys.begin(), keys.end());
  {  // version 1: a 64-byte header, then the entries, nothing else
    BreachedHeader h{};
    std::memcpy(h.magic, kBreachedMagic, sizeof h.magic);
    h.version = 1;
    h.header_size = sizeof h;
    h.count = keys.size();
    std::ofstream out(dir.file("v1.bin"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(keys.data()), static_cast<std::streamsize>(keys.size() * 8));
  }
  BreachedFile v1 = open_list(dir.file("v1.bin"));
  for (size_t i = 0; i < 3000; ++i) BOOST_TEST(v1.contains_password(corpus()[i].password));
  BOOST_TEST(!v1.contains_password("unlisted"));

  {
    BreachedWriter writer(dir.file("v2.bin"));
    for (uint64_t k : keys) writer.add(k);
    writer.commit(BreachedHeader{});
  }
  fs::copy_file(dir.file("v2.bin"), dir.file("short.bin"));
  fs::resize_file(dir.file("short.bin"), fs::file_size(dir.file("v2.bin")) - 8);  // the index cut short
  fs::copy_file(dir.file("v2.bin"), dir.file("v3.bin"));
  {
    std::fstream f(dir.file("v3.bin"), std::ios::binary | std::ios::in | std::ios::out);
    const uint32_t three = 3;
    f.seekp(8);
    f.write(reinterpret_cast<const char*>(&three), sizeof three);
  }
  // The checks open() makes on the header page alone, with and without a
  // first key (whose index page a damaged file's size may still point at).
  const auto damaged = [&](const char* name, auto change) {
    fs::copy_file(dir.file("v2.bin"), dir.file(name));
    change(dir.file(name));
  };
  const uint64_t size = fs::file_size(dir.file("v2.bin"));
  damaged("entries-cut.bin",
          [&](const std::string& p) { fs::resize_file(p, size - 4104); });  // a page and an index entry
  damaged("longer.bin", [&](const std::string& p) { fs::resize_file(p, size + 1); });
  damaged("header-only.bin", [](const std::string& p) { fs::resize_file(p, 4096); });
  damaged("tiny.bin", [](const std::string& p) { fs::resize_file(p, 10); });
  damaged("magic.bin", [](const std::string& p) {
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.write("SVCBRCX\n", 8);
  });
  for (const char* name :
       {"short.bin", "v3.bin", "entries-cut.bin", "longer.bin", "header-only.bin", "tiny.bin", "magic.bin"}) {
    for (const auto first_key : {std::optional<uint64_t>{}, std::optional<uint64_t>{keys[1500]}}) {
      std::string error;
      BOOST_TEST_CONTEXT(name << (first_key ? ", with a first key" : "")) {
        BOOST_TEST(!BreachedFile::open(dir.file(name), error, first_key).has_value());
        BOOST_TEST(error.find("not a breached-password list") != std::string::npos, error);
      }
    }
  }
  BOOST_TEST(open_list(dir.file("v2.bin")).contains(keys[1500]));
}

// A cold open and its first lookup read the header page, the page of the
// page index the key's interpolation guess lands on (or its neighbour) and
// one entry page: not the whole index, and no read-around (this VM's disk
// reads 8 MiB around a page fault). 4 M uniform keys: 32 MB of entries, an
// index of 16 pages.
BOOST_AUTO_TEST_CASE(a_cold_open_and_its_first_lookups_read_a_few_pages) {
  TempDir dir;
  const std::string path = dir.file("cold.bin");
  constexpr uint64_t kKeys = 4'000'000;
  {
    std::mt19937_64 rng(41);
    const uint64_t slice = ~0ULL / kKeys;
    BreachedWriter writer(path);
    for (uint64_t i = 0; i < kKeys; ++i) writer.add(i * slice + rng() % slice);
    writer.commit(BreachedHeader{});  // fsync'd: nothing dirty for the drop to keep
  }
  BOOST_TEST(breached_index_count(kKeys) * 8 / 4096 >= 15u);
  if (resident_after_drop(path, true) != 0) {
    BOOST_TEST_MESSAGE("the temp folder keeps dropped pages (tmpfs?): cold reads not measured");
    return;
  }
  std::string error;
  auto list = BreachedFile::open(path, error);
  BOOST_REQUIRE_MESSAGE(list, error);
  BOOST_TEST(resident_pages(path) == 1u);  // the header
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("lookup " << i) {
      const size_t before = resident_pages(path);
      BOOST_TEST(!list->contains_password("cold-" + std::to_string(i)));
      BOOST_TEST(resident_pages(path) - before <= 3u);  // an index page (two at a boundary), an entry page
    }
  }

  // Opened for a first key (as BreachedList opens): its index page is read
  // with the header, and the lookup adds its entry page.
  list.reset();
  BOOST_REQUIRE(resident_after_drop(path, true) == 0u);
  const uint64_t key = breached_key("cold-first");
  list = BreachedFile::open(path, error, key);
  BOOST_REQUIRE_MESSAGE(list, error);
  BOOST_TEST(resident_pages(path) == 2u);  // the header, the key's index page
  BOOST_TEST(!list->contains(key));
  BOOST_TEST(resident_pages(path) == 3u);

  // Through BreachedList, as a worker looks up: after its first lookup the
  // whole page index is read in the background, so that later lookups read
  // an entry page alone. The reads are the kernel's: polled, with a bound.
  list.reset();
  BOOST_REQUIRE(resident_after_drop(path, true) == 0u);
  BreachedList worker(path);
  BOOST_TEST((worker.listed("cold-worker", 1) == std::optional<bool>(false)));
  const size_t index_pages = (fs::file_size(path) - breached_index_offset(kKeys) / 4096 * 4096 + 4095) / 4096;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (resident_pages(path) < index_pages + 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  BOOST_TEST(resident_pages(path) >= index_pages + 2);  // the header, an entry page, the whole index
  BOOST_TEST(resident_pages(path) <= index_pages + 3);  // and no other entry page
}

BOOST_AUTO_TEST_CASE(hashes_agreeing_in_64_bits_are_ordered_by_all_40_digits_and_kept_as_one) {
  TempDir dir;
  const std::string prefix = "0123456789ABCDEF";
  {
    std::ofstream out(dir.file("same.txt"), std::ios::binary);
    out << prefix << "000000000000000000000001:5\n"
        << prefix << "00000000000000000000000a:5\n"
        << "F123456789ABCDEF000000000000000000000000:1\n";
  }
  const auto result = import_breached(dir.file("same.txt"), dir.file("list.bin"), options());
  BOOST_TEST(result.lines == 3u);
  BOOST_TEST(result.entries == 2u);
  BOOST_TEST(open_list(dir.file("list.bin")).contains(0x0123456789ABCDEFULL));
  {
    std::ofstream out(dir.file("swapped.txt"), std::ios::binary);
    out << prefix << "00000000000000000000000A:5\n" << prefix << "000000000000000000000001:5\n";
  }
  try {
    import_breached(dir.file("swapped.txt"), dir.file("list.bin"), options());
    BOOST_FAIL("imported");
  } catch (const BreachedImportError& e) {
    BOOST_TEST(std::string(e.what()) ==
               "line 2: not ordered by hash (after 0123456789ABCDEF00000000000000000000000A): the download ordered "
               "by hash is required");
  }
}

// Every line shape the parser tells apart: a bad line in the middle of the
// file (where the fast path reads 16 bytes past the hash) and as the last
// line (where it cannot, and the checked path reads it), named with its
// line number and the same words either way.
BOOST_AUTO_TEST_CASE(each_malformed_line_is_named_wherever_it_is) {
  TempDir dir;
  const std::string first = corpus()[0].hash, last = "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF";
  const std::string hash = "8" + first.substr(1);  // between the two
  BOOST_REQUIRE(first < hash);
  const std::pair<std::string, const char*> cases[] = {
      {hash + ":12a4", "the count is not a decimal number"},
      {hash + ":1 ", "the count is not a decimal number"},
      {hash + ":1\r", "the count is not a decimal number"},                   // "\r\r\n"
      {hash + ":18446744073709551616", "the count is not a decimal number"},  // 2^64
      {hash + ":", "not a SHA1:COUNT line"},
      {hash + ";1", "not a SHA1:COUNT line"},
      {hash.substr(0, 39) + ":1", "not a SHA1:COUNT line"},
      {hash.substr(0, 16) + "G" + hash.substr(17) + ":1", "the hash is not 40 hex digits"},
      {hash.substr(0, 39) + "g:1", "the hash is not 40 hex digits"},
      {hash.substr(0, 24) + " " + hash.substr(25) + ":1", "the hash is not 40 hex digits"},
      {"not a hash line, but as long as one, or longer: 1", "not a SHA1:COUNT line"},
  };
  for (const auto& [line, expected] : cases) {
    for (const bool at_end : {false, true}) {
      BOOST_TEST_CONTEXT(line << (at_end ? ", the last line" : ", in the middle")) {
        {
          std::ofstream out(dir.file("bad.txt"), std::ios::binary);
          out << first << ":1\r\n" << line << "\r\n";
          if (!at_end) out << last << ":1\r\n";
        }
        try {
          import_breached(dir.file("bad.txt"), dir.file("list.bin"), options());
          BOOST_FAIL("imported");
        } catch (const BreachedImportError& e) {
          BOOST_TEST(std::string(e.what()).find(std::string("line 2: ") + expected) == 0u, e.what());
        }
      }
    }
  }
}

// COUNT of every length the parser reads differently (up to 8 digits at
// once, up to 14 within its first 16 bytes, longer), against --min-count
// on either side of it, LF and CRLF.
BOOST_AUTO_TEST_CASE(counts_of_every_length_meet_min_count_exactly) {
  TempDir dir;
  const uint64_t counts[] = {
      0, 1, 9, 10, 12345678, 99999999, 100000000, 123456789012345, 12345678901234567, 9999999999999999999ULL};
  std::vector<Line> lines;
  for (size_t i = 0; i < 3 * std::size(counts); ++i) lines.push_back(corpus()[i]);
  std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.hash < b.hash; });
  for (const char* eol : {"\n", "\r\n"}) {
    {
      std::ofstream out(dir.file("counts.txt"), std::ios::binary);
      for (size_t i = 0; i < lines.size(); ++i) out << lines[i].hash << ':' << counts[i % std::size(counts)] << eol;
    }
    for (const uint64_t min_count : {1ULL, 10ULL, 100000000ULL, 123456789012345ULL, 18446744073709551615ULL}) {
      BOOST_TEST_CONTEXT("min_count " << min_count << (eol[0] == '\r' ? ", CRLF" : ", LF")) {
        const auto result = import_breached(dir.file("counts.txt"), dir.file("list.bin"), options(min_count));
        BOOST_TEST(result.lines == lines.size());
        BreachedFile list = open_list(dir.file("list.bin"));
        size_t wrong = 0;
        for (size_t i = 0; i < lines.size(); ++i) {
          wrong += list.contains_password(lines[i].password) == (counts[i % std::size(counts)] >= min_count) ? 0 : 1;
        }
        BOOST_TEST(wrong == 0u);
      }
    }
  }
}

// A pipe (standard input, a FIFO) is read() piece by piece, a file mapped:
// the same list either way, lines cut at every boundary of the pieces, and
// the progress reports count up to the whole input.
BOOST_AUTO_TEST_CASE(a_pipe_gives_the_same_list_as_a_file) {
  TempDir dir;
  const std::vector<Line> some(corpus().begin(), corpus().begin() + 400'000);  // 18 MB: three 8 MiB chunks
  std::vector<Line> mixed_case = some;
  for (size_t i = 0; i < mixed_case.size(); i += 2) {
    for (char& c : mixed_case[i].hash) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  write_text(dir.file("some.txt"), mixed_case);
  std::vector<BreachedImportProgress> reports;
  BreachedImportOptions with_progress = options();
  with_progress.progress_seconds = 0;
  with_progress.progress = [&](const BreachedImportProgress& p) { reports.push_back(p); };
  const auto from_file = import_breached(dir.file("some.txt"), dir.file("file.bin"), with_progress);
  BOOST_TEST(from_file.lines == some.size());
  BOOST_TEST(from_file.entries == some.size());
  BOOST_REQUIRE(reports.size() >= 3u);
  const uint64_t size = fs::file_size(dir.file("some.txt"));
  BOOST_TEST(reports.back().bytes == size);
  BOOST_TEST(reports.back().total == size);
  BOOST_TEST(reports.back().lines == some.size());
  for (size_t i = 1; i < reports.size(); ++i) BOOST_TEST(reports[i].bytes >= reports[i - 1].bytes);

  BOOST_REQUIRE(::mkfifo(dir.file("pipe").c_str(), 0600) == 0);
  std::thread writer([&] {
    std::ifstream in(dir.file("some.txt"), std::ios::binary);
    std::ofstream(dir.file("pipe"), std::ios::binary) << in.rdbuf();
  });
  const auto from_pipe = import_breached(dir.file("pipe"), dir.file("pipe.bin"), options());
  writer.join();
  BOOST_TEST(from_pipe.lines == some.size());
  BOOST_TEST(from_pipe.entries == from_file.entries);
  BreachedFile a = open_list(dir.file("file.bin")), b = open_list(dir.file("pipe.bin"));
  BOOST_TEST(b.header().source_size == size);
  const auto entries = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes.substr(kBreachedPage);  // the header has the source's mtime
  };
  BOOST_TEST((entries(dir.file("file.bin")) == entries(dir.file("pipe.bin"))));
  BOOST_TEST(b.contains_password(some.front().password));
  BOOST_TEST(b.contains_password(some.back().password));
}

// Hex digits of either case sort by their value: the same hash in the
// other case is a repeat, and a hash differing in its last digit only is
// still ordered by it.
BOOST_AUTO_TEST_CASE(the_order_ignores_the_case_of_the_digits) {
  TempDir dir;
  const std::string prefix = "0123456789ABCDEF0123456789ABCDEF0123456";
  const auto import_lines = [&](const std::vector<std::string>& lines) -> std::string {
    {
      std::ofstream out(dir.file("case.txt"), std::ios::binary);
      for (const auto& l : lines) out << l << ":1\n";
    }
    try {
      import_breached(dir.file("case.txt"), dir.file("list.bin"), options());
      return "imported";
    } catch (const BreachedImportError& e) {
      return e.what();
    }
  };
  BOOST_TEST(import_lines({prefix + "9", prefix + "a", prefix + "B", prefix + "c"}) == "imported");
  BOOST_TEST(import_lines({prefix + "a", prefix + "A"}).find("line 2: not ordered by hash (after " + prefix + "A)") ==
             0u);
  BOOST_TEST(import_lines({prefix + "B", prefix + "a"}).find("line 2: not ordered by hash") == 0u);
  std::string lower = prefix + "0";
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  BOOST_TEST(import_lines({prefix + "0", lower}).find("line 2: not ordered by hash") == 0u);
  BOOST_TEST(
      import_lines({"0123456789ABCDEF1" + prefix.substr(17) + "0", "0123456789ABCDEF0" + prefix.substr(17) + "1"})
          .find("line 2: not ordered by hash") == 0u);
}

BOOST_AUTO_TEST_CASE(keys_are_the_big_endian_first_eight_bytes) {
  // SHA-1("password") = 5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8
  BOOST_TEST(breached_key("password") == 0x5BAA61E4C9B93F3FULL);
  BOOST_TEST(breached_key_of_hex("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8").value_or(0) == 0x5BAA61E4C9B93F3FULL);
  BOOST_TEST(!breached_key_of_hex("5BAA61E4C9B93F3").has_value());
  BOOST_TEST(!breached_key_of_hex("5BAA61E4C9B93F3G").has_value());
}

// Issue 48: a list truncated in place while a worker has it mapped. The
// pages past the new end have no file behind them; reading one raised
// SIGBUS and killed the process. Now the lookup answers "no list", and the
// next stat (a new second) maps what is there.
BOOST_AUTO_TEST_CASE(a_list_cut_short_in_place_answers_no_list_instead_of_sigbus) {
  TempDir dir;
  const std::vector<Line> lines(corpus().begin(), corpus().begin() + 100000);
  write_text(dir.file("a.txt"), lines);
  import_breached(dir.file("a.txt"), dir.file("list.bin"), options());
  BreachedList list(dir.file("list.bin"));
  const std::string last = lines.back().password;  // on the last entry page
  BOOST_TEST(verdict(list.listed(last, 100)) == "listed");

  BOOST_REQUIRE(::truncate(dir.file("list.bin").c_str(), 2 * kBreachedPage) == 0);  // same inode, same second
  BOOST_TEST(verdict(list.listed(last, 100)) == "no list");
  BOOST_TEST(verdict(list.listed(last, 101)) == "no list");  // stat: cut short, refused

  import_breached(dir.file("a.txt"), dir.file("list.bin"), options());
  BOOST_TEST(verdict(list.listed(last, 102)) == "listed");
}

// Issue 48: the import wrote through whatever was at <list>.tmp, a
// symbolic link planted there included. Now it makes the file anew
// (O_EXCL | O_NOFOLLOW): a link there is refused and its target untouched;
// a regular file left by a dead import is replaced.
BOOST_AUTO_TEST_CASE(the_import_never_writes_through_a_link_at_its_temporary_name) {
  TempDir dir;
  const std::vector<Line> lines(corpus().begin(), corpus().begin() + 10);
  write_text(dir.file("a.txt"), lines);
  {
    std::ofstream victim(dir.file("victim"));
    victim << "keep me";
  }
  fs::create_symlink(dir.file("victim"), dir.file("list.bin.tmp"));
  BOOST_CHECK_THROW(import_breached(dir.file("a.txt"), dir.file("list.bin"), options()), std::runtime_error);
  std::ifstream victim(dir.file("victim"));
  const std::string kept((std::istreambuf_iterator<char>(victim)), std::istreambuf_iterator<char>());
  BOOST_TEST(kept == "keep me");
  BOOST_TEST(fs::is_symlink(dir.file("list.bin.tmp")));
  BOOST_TEST(!fs::exists(dir.file("list.bin")));

  fs::remove(dir.file("list.bin.tmp"));
  {
    std::ofstream left(dir.file("list.bin.tmp"));
    left << "left by an import that died";
  }
  import_breached(dir.file("a.txt"), dir.file("list.bin"), options());
  BOOST_TEST(open_list(dir.file("list.bin")).contains_password(lines[3].password));
  BOOST_TEST(!fs::exists(dir.file("list.bin.tmp")));
}

BOOST_AUTO_TEST_SUITE_END()
