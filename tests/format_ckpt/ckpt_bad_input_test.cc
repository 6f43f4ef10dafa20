// The checkpoint reader against bad bytes (docs/checkpoint-format.md): each
// bad-input case gives its own error naming the file; the committed corpora
// are what the cases and the writer make; truncation at every length and
// every bit flip give an error or change only unchecked padding; every
// allocation failing gives an error with nothing leaked.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "base/mem.h"
#include "base/status.h"
#include "graph_format/checkpoint_format.h"
#include "tests/format_ckpt/ckpt_cases.h"

namespace grt_test {
namespace {

const char kBadDir[] = "tests/format_ckpt/bad";
const char kSeedDir[] = "tests/format_ckpt/corpus";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A parse's result; the entries point into the bytes parsed.
struct Parsed {
  grt_code code = GRT_OK;
  std::string message;
  int32_t n = 0;
  std::vector<grt_ckpt_entry> entries;
};

Parsed Parse(const std::string& bytes, const std::string& path) {
  Parsed p;
  grt_ckpt_entry* e = nullptr;
  grt_status* s = grt_ckpt_parse(path.c_str(), bytes.data(), bytes.size(), &e, &p.n);
  if (s) {
    EXPECT_EQ(e, nullptr);
    EXPECT_EQ(p.n, 0);
    p.code = grt_status_code(s);
    p.message = grt_status_message(s);
    grt_status_free(s);
    return p;
  }
  p.entries.assign(e, e + p.n);
  grt_free(e);
  return p;
}

void ExpectCase(const CkptBadCase& c, const std::string& bytes, const std::string& fragment,
                const std::string& path) {
  Parsed p = Parse(bytes, path);
  EXPECT_EQ(p.code, c.code) << path << ": " << p.message;
  EXPECT_NE(p.message.find(fragment), std::string::npos)
      << path << "\n  message: " << p.message << "\n  expected to contain: " << fragment;
  EXPECT_EQ(p.message.rfind(path + ": ", 0), 0u)
      << "the message does not start with the file: " << p.message;
}

TEST(CkptBadInput, TheBaseIsGood) {
  std::string base = CkptBase();  // the entries point into it
  Parsed p = Parse(base, "base.ckpt");
  ASSERT_EQ(p.code, GRT_OK) << p.message;
  ASSERT_EQ(p.n, 12);
  EXPECT_EQ(std::string(p.entries[0].name, p.entries[0].name_len), "w");
  EXPECT_EQ(p.entries[0].dtype, GRT_FLOAT32);
  EXPECT_EQ(p.entries[0].shape.rank, 2);
  EXPECT_EQ(p.entries[0].size, 24u);
  EXPECT_EQ(p.entries[11].shape.rank, GRT_MAX_RANK);
}

TEST(CkptBadInput, EveryCaseGivesItsError) {
  std::string base = CkptBase();
  std::set<std::string> names;
  for (const CkptBadCase& c : CkptBadCases()) {
    EXPECT_TRUE(names.insert(c.name).second) << "two cases called " << c.name;
    std::string b = base;
    std::string fragment = c.make(&b);
    EXPECT_NE(b, base) << c.name << " changed nothing";
    ExpectCase(c, b, fragment, c.name + ".ckpt");
  }
}

// The files in a corpus folder, by name.
std::set<std::string> Listing(const char* dir) {
  std::set<std::string> out;
  DIR* d = opendir(dir);
  EXPECT_NE(d, nullptr) << dir;
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") out.insert(name);
  }
  closedir(d);
  return out;
}

TEST(CkptBadInput, CommittedCorpusGivesTheSameErrors) {
  // tests/format_ckpt/bad/*.ckpt are written by make_corpus from the cases;
  // if the format changes, rerun it (tests/fuzz/README.md).
  std::string base = CkptBase();
  std::set<std::string> known;
  for (const CkptBadCase& c : CkptBadCases()) {
    std::string b = base;
    std::string fragment = c.make(&b);
    std::string path = std::string(kBadDir) + "/" + c.name + ".ckpt";
    known.insert(c.name + ".ckpt");
    std::string committed = ReadFile(path);
    EXPECT_EQ(committed, b) << path << " is not what its case makes (rerun make_corpus)";
    ExpectCase(c, committed, fragment, path);
  }
  EXPECT_EQ(Listing(kBadDir), known);
}

TEST(CkptBadInput, CommittedSeedsAreTheWritersAndRead) {
  std::set<std::string> known;
  for (const auto& seed : CkptSeeds()) {
    std::string path = std::string(kSeedDir) + "/" + seed.first + ".ckpt";
    known.insert(seed.first + ".ckpt");
    std::string committed = ReadFile(path);
    EXPECT_EQ(committed, seed.second)
        << path << " is not what the writer makes (rerun make_corpus)";
    Parsed p = Parse(committed, path);
    EXPECT_EQ(p.code, GRT_OK) << p.message;
  }
  EXPECT_EQ(Listing(kSeedDir), known);
}

TEST(CkptBadInput, TruncationAtEveryLength) {
  for (const auto& seed : CkptSeeds()) {
    const std::string& b = seed.second;
    for (size_t len = 0; len < b.size(); len++) {
      Parsed p = Parse(b.substr(0, len), "t.ckpt");
      ASSERT_EQ(p.code, GRT_DATA_LOSS) << seed.first << " cut to " << len << ": " << p.message;
    }
  }
}

// Each flipped bit is caught, unless it lies in the zero padding before a
// variable's data, which is not checksummed and carries nothing.
TEST(CkptBadInput, EveryBitFlipIsCaughtOrInPadding) {
  for (const auto& seed : CkptSeeds()) {
    const std::string& b = seed.second;
    std::vector<bool> padding(b.size(), true);
    for (size_t i = 0; i < GRT_CKPT_HEADER_SIZE + CkptGet64(b, 24); i++) padding[i] = false;
    for (const CkptRecord& r : CkptRecords(b)) {
      uint64_t off = CkptGet64(b, r.offset_at), size = CkptGet64(b, r.size_at);
      for (uint64_t i = off; i < off + size; i++) padding[i] = false;
    }
    int caught = 0;
    for (size_t at = 0; at < b.size(); at++) {
      for (int bit = 0; bit < 8; bit++) {
        std::string d = b;
        d[at] = static_cast<char>(d[at] ^ (1 << bit));
        Parsed p = Parse(d, "f.ckpt");
        if (p.code == GRT_OK) {
          EXPECT_TRUE(padding[at])
              << seed.first << ": a flip of bit " << bit << " at " << at << " went unnoticed";
        } else {
          caught++;
          EXPECT_TRUE(p.code == GRT_DATA_LOSS || p.code == GRT_FAILED_PRECONDITION) << p.message;
        }
      }
    }
    EXPECT_GT(caught, 0);
  }
}

// The reader allocates one array; when that fails the error names the file,
// and nothing leaks (checked under ASan).
TEST(CkptBadInput, AllocationFailure) {
  std::string b = CkptBase();
  grt_mem_fail_once_after(0);
  Parsed p = Parse(b, "a.ckpt");
  grt_mem_fail_once_after(-1);
  EXPECT_EQ(p.code, GRT_RESOURCE_EXHAUSTED);
  EXPECT_EQ(p.message, "a.ckpt: out of memory reading the index");
  grt_mem_fail_after(0);
  grt_ckpt_entry* e = nullptr;
  int32_t n = 0;
  grt_status* s = grt_ckpt_parse("a.ckpt", b.data(), b.size(), &e, &n);
  grt_mem_fail_after(-1);
  EXPECT_EQ(s, grt_status_out_of_memory());  // not even the message fits
  EXPECT_EQ(e, nullptr);
  grt_status_free(s);
}

}  // namespace
}  // namespace grt_test
