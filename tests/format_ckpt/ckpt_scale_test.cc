// Checkpoints with many entries: the reader's duplicate check and restore's
// matching of variables to entries are n log n, not quadratic (100,000
// entries took 9.3 s and 300,000 more than two minutes when every name was
// compared with every earlier one), duplicates are still refused wherever
// they sit, and the entry cap holds for reader and writer.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <zlib.h>

#include "base/mem.h"
#include "graph_format/checkpoint_format.h"
#include "grt/grt.h"

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// n scalar float32 variables named v0..v(n-1) with value i; `dup_last`
// names the last one as the first.
struct Vars {
  std::vector<std::string> names;
  std::vector<grt_tensor*> tensors;
  std::vector<grt_ckpt_var> vars;
  Vars(int n, bool dup_last) {
    for (int i = 0; i < n; i++) {
      names.push_back("v" + std::to_string(dup_last && i == n - 1 ? 0 : i));
      grt_tensor* t = nullptr;
      EXPECT_EQ(Message(grt_tensor_new(GRT_FLOAT32, 0, nullptr, &t)), "");
      *(float*)grt_tensor_data(t) = (float)i;
      tensors.push_back(t);
    }
    for (int i = 0; i < n; i++) vars.push_back({names[i].c_str(), tensors[i]});
  }
  ~Vars() {
    for (grt_tensor* t : tensors) grt_tensor_free(t);
  }
  std::string Bytes() {
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    EXPECT_EQ(Message(grt_ckpt_write(f, vars.data(), (int32_t)vars.size())), "");
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
  }
};

TEST(CkptScale, HundredThousandEntriesParseInWellUnderASecond) {
  std::string b = Vars(100000, false).Bytes();
  grt_ckpt_entry* e = nullptr;
  int32_t n = 0;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Message(grt_ckpt_parse("big.ckpt", b.data(), b.size(), &e, &n)), "");
  double s = Seconds(t0);
  EXPECT_EQ(n, 100000);
  EXPECT_LT(s, 1.0) << "parsing 100,000 entries took " << s << " s";
  // File order is kept; lookups after sorting find every name.
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(std::string(e[12345].name, e[12345].name_len), "v12345");
  grt_ckpt_sort_by_name(e, n);
  const grt_ckpt_entry* x = grt_ckpt_find(e, n, "v99999", 6);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(*(const float*)x->data, 99999.0f);
  EXPECT_EQ(grt_ckpt_find(e, n, "v100000", 7), nullptr);
  EXPECT_EQ(grt_ckpt_find(e, n, "", 0), nullptr);
  grt_free(e);
}

TEST(CkptScale, ADuplicateFarApartIsStillRefused) {
  std::string b = Vars(100000, true).Bytes();
  grt_ckpt_entry* e = nullptr;
  int32_t n = 0;
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Message(grt_ckpt_parse("dup.ckpt", b.data(), b.size(), &e, &n)),
            "dup.ckpt: variable 'v0' appears twice");
  EXPECT_LT(Seconds(t0), 1.0);
  EXPECT_EQ(e, nullptr);
}

TEST(CkptScale, TheEntryCapHoldsForWriterAndReader) {
  EXPECT_EQ(Message(grt_ckpt_write(stdout, nullptr, (int32_t)GRT_CKPT_MAX_ENTRIES + 1)),
            "1048577 variables: a checkpoint holds at most 1048576");
  // A header claiming one entry more than the cap over an index big enough
  // to hold that many (zeros, its checksums right): refused by the count,
  // before an entry is read or the entries' array allocated.
  const uint32_t count = GRT_CKPT_MAX_ENTRIES + 1;
  const uint64_t index_size = 28ull * count, len = 48 + index_size;
  std::string b(len, '\0');
  auto put = [&](size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) b[at + i] = (char)(v >> (8 * i));
  };
  b.replace(0, 8, GRT_CKPT_MAGIC, 8);
  put(8, GRT_CKPT_VERSION, 4);
  put(12, count, 4);
  put(16, 48, 8);
  put(24, index_size, 8);
  put(32, len, 8);
  put(40, crc32(0L, (const Bytef*)b.data() + 48, (uInt)index_size), 4);
  put(44, crc32(0L, (const Bytef*)b.data(), 44), 4);
  grt_ckpt_entry* e = nullptr;
  int32_t n = 0;
  EXPECT_EQ(Message(grt_ckpt_parse("cap.ckpt", b.data(), b.size(), &e, &n)),
            "cap.ckpt: 1048577 variables; a checkpoint holds at most 1048576");
  EXPECT_EQ(e, nullptr);
}

// A graph of `k` scalar variables u0..u(k-1) restored from a checkpoint of
// 100,000 entries holding them among others: 2,000 lookups in 100,000
// entries, once a scan each.
TEST(CkptScale, RestoreFromAHundredThousandEntriesIsFast) {
  const int k = 2000;
  Vars v(100000, false);
  for (int i = 0; i < k; i++) v.names[50000 + i] = "u" + std::to_string(i);
  for (int i = 0; i < k; i++) v.vars[50000 + i].name = v.names[50000 + i].c_str();
  const char* tmp = getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/big.ckpt";
  {
    std::string b = v.Bytes();
    FILE* f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fwrite(b.data(), 1, b.size(), f);
    fclose(f);
  }
  std::string json = R"({"format":"grt.graph","version":1,"nodes":[)";
  for (int i = 0; i < k; i++)
    json += std::string(i ? "," : "") + R"({"name":"u)" + std::to_string(i) +
            R"(","op":"VariableV2","attrs":{"dtype":"float32","shape":[]}})";
  json += "]}";
  grt_graph* g = nullptr;
  ASSERT_EQ(Message(grt_graph_from_json(json.data(), json.size(), &g)), "");
  grt_session* s = nullptr;
  ASSERT_EQ(Message(grt_session_new(g, nullptr, &s)), "");
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Message(grt_session_restore_variables(s, path.c_str())), "");
  double secs = Seconds(t0);
  EXPECT_LT(secs, 1.0) << "restoring took " << secs << " s";
  const char* fetch = "u1234";
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_session_run(s, nullptr, 0, &fetch, 1, nullptr, 0, &out, nullptr)), "");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(*(const float*)grt_tensor_data(out), 51234.0f);
  grt_tensor_free(out);
  grt_session_free(s);
  grt_graph_free(g);
  remove(path.c_str());
}

}  // namespace
