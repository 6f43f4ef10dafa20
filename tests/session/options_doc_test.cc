// The session options exist once, as the library's table (and the
// backends' declarations for "type.KEY"), listed by
// grt_session_options_describe. The list in include/grt/session.h and the
// tables of docs/session-options.md must name exactly those keys, with the
// table's defaults, so a key added, renamed or dropped in one place and not
// the others fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// key -> default, from the library.
std::map<std::string, std::string> Described() {
  size_t need = grt_session_options_describe(nullptr, 0);
  std::string text(need + 1, '\0');
  EXPECT_EQ(grt_session_options_describe(&text[0], text.size()), need);
  text.resize(need);
  std::map<std::string, std::string> out;
  for (const std::string& line : Lines(text)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, '\t');) f.push_back(field);
    if (line.back() == '\t') f.push_back("");
    EXPECT_EQ(f.size(), 4u) << line;  // key, value type, default, doc
    if (f.size() == 4u) {
      EXPECT_FALSE(f[1].empty()) << line;
      EXPECT_FALSE(f[3].empty()) << line;
      EXPECT_TRUE(out.emplace(f[0], f[2]).second) << "listed twice: " << f[0];
    }
  }
  return out;
}

std::set<std::string> Keys(const std::map<std::string, std::string>& m) {
  std::set<std::string> out;
  for (const auto& kv : m) out.insert(kv.first);
  return out;
}

// The keys of the option list in session.h's comment: lines " *   KEY  ..."
// between "---- options" and the end of the comment.
std::set<std::string> HeaderKeys(const std::string& header) {
  std::set<std::string> out;
  bool in = false;
  for (const std::string& line : Lines(header)) {
    if (line.find("---- options") != std::string::npos) in = true;
    if (!in) continue;
    if (line.rfind(" *   ", 0) == 0 && line.size() > 5 && line[5] != ' ') {
      std::string key = line.substr(5, line.find(' ', 5) - 5);
      EXPECT_TRUE(out.insert(key).second) << "listed twice: " << key;
    }
    if (line.find("*/") != std::string::npos) break;
  }
  return out;
}

// key -> default from the docs' tables: rows "| `key` | value | default | ...",
// the default the first `...` of its cell ("" when it has none).
std::map<std::string, std::string> DocKeys(const std::string& md) {
  std::map<std::string, std::string> out;
  for (const std::string& line : Lines(md)) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    for (std::string c; std::getline(ss, c, '|');) cells.push_back(c);
    if (cells.size() < 3) continue;
    std::string key = cells[0].substr(cells[0].find('`') + 1);
    key = key.substr(0, key.find('`'));
    std::string def;
    size_t a = cells[2].find('`');
    if (a != std::string::npos) def = cells[2].substr(a + 1, cells[2].find('`', a + 1) - a - 1);
    if (def == "\"\"") def = "";
    EXPECT_TRUE(out.emplace(key, def).second) << "listed twice: " << key;
  }
  return out;
}

TEST(OptionsDoc, HeaderListsExactlyTheTablesKeys) {
  std::string header = ReadFile("include/grt/session.h");
  ASSERT_FALSE(header.empty());
  std::set<std::string> listed = HeaderKeys(header);
  std::set<std::string> table = Keys(Described());
  for (const std::string& k : table) EXPECT_TRUE(listed.count(k)) << "session.h lacks " << k;
  for (const std::string& k : listed)
    EXPECT_TRUE(table.count(k)) << "session.h lists unknown " << k;
}

TEST(OptionsDoc, DocsListExactlyTheTablesKeysWithTheirDefaults) {
  std::string md = ReadFile("docs/session-options.md");
  ASSERT_FALSE(md.empty());
  std::map<std::string, std::string> docs = DocKeys(md);
  std::map<std::string, std::string> table = Described();
  for (const auto& kv : table) {
    auto it = docs.find(kv.first);
    if (it == docs.end()) {
      ADD_FAILURE() << "docs/session-options.md lacks " << kv.first;
      continue;
    }
    EXPECT_EQ(it->second, kv.second) << "default of " << kv.first;
  }
  for (const auto& kv : docs)
    EXPECT_TRUE(table.count(kv.first)) << "docs/session-options.md lists unknown " << kv.first;
}

// The checks above can fail: a list with a key too many or one too few is
// caught by the same comparison.
TEST(OptionsDoc, TheComparisonNoticesAMissingOrExtraKey) {
  std::set<std::string> table = Keys(Described());
  ASSERT_TRUE(table.count("verify_constants"));
  ASSERT_TRUE(table.count("gpu.virtual_devices"));
  ASSERT_TRUE(table.count("cpu.devices"));
  std::string extra = " * ---- options\n *   clusters  x\n */\n";
  EXPECT_FALSE(table.count(*HeaderKeys(extra).begin()));
  std::map<std::string, std::string> one = DocKeys("| `rewrite` | bool | `true` | x |\n");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.begin()->second, "true");
  EXPECT_NE(Keys(one), table);
}

// Every key is settable to its default, and an unknown key names the key
// and lists every key the library has (or, for a device type's prefix,
// the keys that type declares).
TEST(OptionsDoc, EveryKeyTakesItsDefaultAndUnknownKeysAreListed) {
  grt_session_options* o = nullptr;
  ASSERT_EQ(grt_session_options_new(&o), nullptr);
  for (const auto& kv : Described()) {
    grt_status* s = grt_session_options_set(o, kv.first.c_str(), kv.second.c_str());
    EXPECT_EQ(s, nullptr) << kv.first << "=" << kv.second << ": " << grt_status_message(s);
    grt_status_free(s);
  }
  grt_status* s = grt_session_options_set(o, "clusters", "x");
  ASSERT_NE(s, nullptr);
  std::string m = grt_status_message(s);
  grt_status_free(s);
  EXPECT_EQ(m.rfind("unknown session option 'clusters' (known: allow_soft_placement, ", 0), 0u)
      << m;
  for (const std::string& k : Keys(Described()))
    EXPECT_NE(m.find(k), std::string::npos) << k << " not in: " << m;
  s = grt_session_options_set(o, "gpu.allow_grow", "true");
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s),
               "unknown session option 'gpu.allow_grow' (device type GPU has: gpu.allow_growth, "
               "gpu.memory_fraction, gpu.virtual_devices)");
  grt_status_free(s);
  s = grt_session_options_set(o, "cpu.devices", "0");
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s), "option cpu.devices: '0' is not an integer in [1, 4096]");
  grt_status_free(s);
  s = grt_session_options_set(o, "gpu.virtual_devices", "1024,");
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s), "option gpu.virtual_devices: '1024,' ends with a comma");
  grt_status_free(s);
  grt_session_options_free(o);
}

}  // namespace
