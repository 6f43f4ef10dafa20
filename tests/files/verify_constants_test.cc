// Constants carry a CRC-32C in .grt files (format 1.1): a flipped byte in a
// weight, which loading never reads and a run silently computes with, is
// caught by grt_graph_verify_constants and by the session option
// verify_constants, naming the node and the attr. Files without checksums
// (format 1.0) still load, with nothing to verify.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "base/crc32c.h"
#include "grt/grt.h"
}

namespace {

TEST(Crc32c, KnownValuesAndBothImplementationsAgree) {
  EXPECT_EQ(grt_crc32c(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(grt_crc32c_portable(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(grt_crc32c(0, "", 0), 0u);
  // 32 zero bytes: RFC 3720's test vector.
  std::vector<unsigned char> zeros(32, 0);
  EXPECT_EQ(grt_crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);
  std::mt19937 rng(7);
  std::vector<unsigned char> buf(4099);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  for (size_t off : {0, 1, 3, 7})
    for (size_t len : {0, 1, 7, 8, 9, 63, 64, 1000, 4090}) {
      uint32_t a = grt_crc32c(0, buf.data() + off, len);
      EXPECT_EQ(a, grt_crc32c_portable(0, buf.data() + off, len)) << off << "+" << len;
      // Continuing a CRC over two pieces equals one pass.
      size_t half = len / 2;
      EXPECT_EQ(
          grt_crc32c(grt_crc32c(0, buf.data() + off, half), buf.data() + off + half, len - half),
          a);
    }
}

const char kGraph[] = R"({"format":"grt.graph","version":1,"nodes":[
 {"name":"dense/w","op":"Const","attrs":{"dtype":"float32",
   "value":{"dtype":"float32","shape":[64],"values":[1.25]}}},
 {"name":"dense/b","op":"Const","attrs":{"dtype":"float32",
   "value":{"dtype":"float32","shape":[64],"values":[0.5]}}},
 {"name":"y","op":"Add","inputs":["dense/w","dense/b"]}]})";

std::string Dir() {
  const char* d = getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp");
}

std::string ReadAll(const std::string& p) {
  FILE* f = fopen(p.c_str(), "rb");
  std::string s;
  char buf[4096];
  size_t n;
  while (f && (n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  if (f) fclose(f);
  return s;
}

void WriteAll(const std::string& p, const std::string& s) {
  FILE* f = fopen(p.c_str(), "wb");
  ASSERT_TRUE(f);
  fwrite(s.data(), 1, s.size(), f);
  fclose(f);
}

TEST(VerifyConstants, FlippedByteIsCaughtAndNamed) {
  std::string good = Dir() + "/good.grt", bad = Dir() + "/bad.grt";
  grt_graph* g = nullptr;
  ASSERT_EQ(grt_graph_from_json(kGraph, sizeof kGraph - 1, &g), nullptr);
  ASSERT_EQ(grt_graph_save(g, good.c_str()), nullptr);
  grt_graph_free(g);

  int64_t checked = -1;
  ASSERT_EQ(grt_graph_load(good.c_str(), &g), nullptr);
  grt_status* s = grt_graph_verify_constants(g, &checked);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(checked, 2);
  grt_graph_free(g);

  // Flip one bit in the second constant's data: the last 256 bytes of the
  // file are dense/b's (data at the end, 64-aligned, 256 bytes each).
  std::string bytes = ReadAll(good);
  bytes[bytes.size() - 100] ^= 0x04;
  WriteAll(bad, bytes);
  for (unsigned flags : {0u, GRT_LOAD_NO_MMAP}) {
    ASSERT_EQ(grt_graph_load_flags(bad.c_str(), flags, &g), nullptr);  // opening stays lazy
    s = grt_graph_verify_constants(g, &checked);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(grt_status_code(s), GRT_DATA_LOSS);
    std::string m = grt_status_message(s);
    EXPECT_NE(m.find("node 'dense/b': attr 'value'"), std::string::npos) << m;
    EXPECT_NE(m.find("does not match its checksum"), std::string::npos) << m;
    grt_status_free(s);

    // The session option refuses the graph before any run.
    grt_session_options* o = nullptr;
    ASSERT_EQ(grt_session_options_new(&o), nullptr);
    ASSERT_EQ(grt_session_options_set(o, "verify_constants", "true"), nullptr);
    grt_session* sess = nullptr;
    s = grt_session_new(g, o, &sess);
    ASSERT_NE(s, nullptr);
    EXPECT_NE(std::string(grt_status_message(s)).find("'dense/b'"), std::string::npos);
    grt_status_free(s);
    // Without it the corrupt weight is used as it is (what the check is for).
    ASSERT_EQ(grt_session_new(g, nullptr, &sess), nullptr);
    const char* fetch[] = {"y"};
    grt_tensor* out[1] = {nullptr};
    ASSERT_EQ(grt_session_run(sess, nullptr, 0, fetch, 1, nullptr, 0, out, nullptr), nullptr);
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += static_cast<float*>(grt_tensor_data(out[0]))[i] != 1.75f;
    EXPECT_EQ(wrong, 1);
    grt_tensor_free(out[0]);
    grt_session_free(sess);
    grt_session_options_free(o);
    grt_graph_free(g);
  }
  unlink(good.c_str());
  unlink(bad.c_str());
}

TEST(VerifyConstants, GraphsWithoutChecksumsHaveNothingToVerify) {
  grt_graph* g = nullptr;
  ASSERT_EQ(grt_graph_from_json(kGraph, sizeof kGraph - 1, &g), nullptr);
  int64_t checked = -1;
  EXPECT_EQ(grt_graph_verify_constants(g, &checked), nullptr);
  EXPECT_EQ(checked, 0);
  grt_graph_free(g);
  // A file written before checksums existed (format 1.0) still loads.
  ASSERT_EQ(grt_graph_load("tests/format_grt/corpus/small_valid.grt", &g), nullptr);
  EXPECT_EQ(grt_graph_verify_constants(g, &checked), nullptr);
  EXPECT_EQ(checked, 0);
  grt_graph_free(g);
}

}  // namespace
