// The .npy reader: every supported dtype, versions 1-3, and bad files each
// with their own error. A fuzz-style sweep truncates and flips every byte of
// a good file: errors, never crashes.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "base/mem.h"
#include "graph_format/npy.h"
#include "base/tensor.h"
}

namespace {

std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                int major = 1, const char* fortran = "False") {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  size_t pre = major == 1 ? 10 : 12;
  while ((pre + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string f = "\x93NUMPY";
  f += static_cast<char>(major);
  f += '\0';
  size_t n = header.size();
  f += static_cast<char>(n & 0xff);
  f += static_cast<char>((n >> 8) & 0xff);
  if (major > 1) {
    f += static_cast<char>((n >> 16) & 0xff);
    f += static_cast<char>((n >> 24) & 0xff);
  }
  return f + header + data;
}

std::string Error(const std::string& file) {
  grt_tensor* t = nullptr;
  grt_status* s = grt_npy_parse(file.data(), file.size(), "x.npy", &t);
  EXPECT_EQ(t, nullptr);
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

TEST(Npy, ReadsFloat32Matrix) {
  float v[6] = {1, 2, 3, 4, 5, 6.5f};
  std::string f = Npy("<f4", "(2, 3)", std::string(reinterpret_cast<char*>(v), sizeof v));
  grt_tensor* t = nullptr;
  grt_status* s = grt_npy_parse(f.data(), f.size(), "x.npy", &t);
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  EXPECT_EQ(grt_tensor_dtype(t), GRT_FLOAT32);
  EXPECT_EQ(grt_tensor_rank(t), 2);
  EXPECT_EQ(grt_tensor_dim(t, 1), 3);
  EXPECT_EQ(memcmp(grt_tensor_data(t), v, sizeof v), 0);
  grt_tensor_free(t);
}

TEST(Npy, EveryDtypeScalarsAndVersions) {
  struct {
    const char* descr;
    grt_dtype t;
    size_t size;
  } rows[] = {{"<f2", GRT_FLOAT16, 2}, {"<f4", GRT_FLOAT32, 4}, {"<f8", GRT_FLOAT64, 8},
              {"|i1", GRT_INT8, 1},    {"<i2", GRT_INT16, 2},   {"<i4", GRT_INT32, 4},
              {"<i8", GRT_INT64, 8},   {"|u1", GRT_UINT8, 1},   {"|b1", GRT_BOOL, 1}};
  for (auto& r : rows) {
    for (int major = 1; major <= 3; major++) {
      std::string f = Npy(r.descr, "()", std::string(r.size, '\1'), major);
      grt_tensor* t = nullptr;
      grt_status* s = grt_npy_parse(f.data(), f.size(), "x.npy", &t);
      ASSERT_EQ(s, nullptr) << r.descr << ": " << grt_status_message(s);
      EXPECT_EQ(grt_tensor_dtype(t), r.t);
      EXPECT_EQ(grt_tensor_rank(t), 0);
      grt_tensor_free(t);
    }
  }
  std::string f = Npy("<i4", "(0, 5)", "");
  grt_tensor* t = nullptr;
  ASSERT_EQ(grt_npy_parse(f.data(), f.size(), "x.npy", &t), nullptr);
  EXPECT_EQ(grt_tensor_num_elements(t), 0);
  grt_tensor_free(t);
}

TEST(Npy, BadFilesSayWhatIsWrong) {
  EXPECT_NE(Error("hello").find("bad magic"), std::string::npos);
  EXPECT_NE(Error(Npy(">f4", "(1,)", "abcd")).find("'descr'"), std::string::npos);
  EXPECT_NE(Error(Npy("<c8", "(1,)", "abcdefgh")).find("'descr'"), std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(1,)", "abcd", 1, "True")).find("C order"), std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(2,)", "abcd")).find("needs 8 bytes of data, the file has 4"),
            std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(1,1,1,1,1,1,1,1,1)", "abcd")).find("more than 8"),
            std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(99999999999999999999,)", "")).find("too large"), std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(a,)", "")).find("malformed"), std::string::npos);
  EXPECT_NE(Error(Npy("|b1", "(1,)", "\x05")).find("not 0 or 1"), std::string::npos);
  EXPECT_NE(Error(Npy("<f4", "(1,)", "abcd", 9)).find("version 9"), std::string::npos);
  std::string f = Npy("<f4", "(1,)", "abcd");
  f[8] = '\xff';
  f[9] = '\xff';
  EXPECT_NE(Error(f).find("runs past the end"), std::string::npos);
}

// Every allocation failing in turn: each failure names the file (the
// tensor's allocator does not know it; the reader adds it on the way up).
TEST(Npy, EveryAllocationFailureNamesTheFile) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  std::string f = Npy("<f4", "(2, 3)", std::string(reinterpret_cast<char*>(v), sizeof v));
  int failed = 0;
  for (int64_t k = 0;; k++) {
    grt_tensor* t = nullptr;
    grt_mem_fail_once_after(k);
    grt_status* s = grt_npy_parse(f.data(), f.size(), "alloc.npy", &t);
    int64_t made = grt_mem_fail_once_after(-1);
    grt_tensor_free(t);
    if (!s && made <= k) break;
    if (s) {
      failed++;
      EXPECT_EQ(t, nullptr);
      EXPECT_EQ(grt_status_code(s), GRT_RESOURCE_EXHAUSTED);
      EXPECT_EQ(std::string(grt_status_message(s)).rfind("alloc.npy: ", 0), 0u)
          << "allocation " << k << ": " << grt_status_message(s);
    }
    grt_status_free(s);
    ASSERT_LT(k, 1000);
  }
  EXPECT_GT(failed, 0);
}

TEST(Npy, TruncationsAndByteFlipsNeverCrash) {
  float v[4] = {1, 2, 3, 4};
  std::string good = Npy("<f4", "(2, 2)", std::string(reinterpret_cast<char*>(v), sizeof v));
  for (size_t n = 0; n < good.size(); n++) EXPECT_FALSE(Error(good.substr(0, n)).empty()) << n;
  for (size_t i = 0; i < good.size(); i++) {
    for (int bit = 0; bit < 8; bit++) {
      std::string f = good;
      f[i] ^= static_cast<char>(1 << bit);
      grt_tensor* t = nullptr;
      grt_status* s = grt_npy_parse(f.data(), f.size(), "x.npy", &t);
      EXPECT_TRUE((s == nullptr) != (t == nullptr));
      grt_status_free(s);
      grt_tensor_free(t);
    }
  }
}

}  // namespace

namespace {

// A header given whole, padded as NumPy pads it.
std::string RawNpy(std::string header, const std::string& data) {
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string f = "\x93NUMPY\x01";
  f += '\0';
  f += static_cast<char>(header.size() & 0xff);
  f += static_cast<char>(header.size() >> 8);
  return f + header + data;
}

// The header is the Python literal it is: lying or malformed headers that a
// scan for "'key':" took for good ones are errors naming the field.
TEST(Npy, HeaderIsParsedAsThePythonLiteral) {
  const std::string four(4, '\0');
  struct {
    const char* header;
    const char* error;
  } bad[] = {
      {"{'descr': '<f4', 'fortran_order': Falsehood, 'shape': (1,), }",
       "'fortran_order' must be True or False, not 'Falsehood'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 4), }", "'shape' is malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1), }", "(1) is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", "'shape' must be a tuple"},
      {"{'shape': (1,), 'fortran_order': False, 'x': 'a', 'descr': '<f4'}", "the key 'x'"},
      {"{'x': \"'descr': '<f4'\", 'fortran_order': False, 'shape': (1,), }", "the key 'x'"},
      {"{'fortran_order': False, 'shape': (1,), 'note': \"'descr': '<f4', \"}", "the key 'note'"},
      {"{'fortran_order': False, 'shape': (1,)}", "no 'descr'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", "'descr' twice"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", "'descr' value is followed by"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} junk", "after the dict"},
      {"['descr', '<f4']", "not a dict"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (1,)}", "'descr' must be a short string"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}", "not 'false'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,,)}", "'shape' is malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "'shape' is malformed"},
  };
  for (const auto& b : bad) {
    std::string m = Error(RawNpy(b.header, four));
    EXPECT_NE(m.find(b.error), std::string::npos) << b.header << "\n  gave: " << m;
  }
  // What Python accepts reads: either quote, no trailing comma, (N,) and
  // (N, M,), Python 2's long suffix, keys in any order.
  const char* good[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1,)}",
      "{'shape': (1, 1,), 'descr': '<f4', 'fortran_order': False}",
      "{'descr':'<f4','fortran_order':False,'shape':(1L,)}",
  };
  for (const char* h : good) {
    grt_tensor* t = nullptr;
    std::string f = RawNpy(h, four);
    grt_status* s = grt_npy_parse(f.data(), f.size(), "x.npy", &t);
    EXPECT_EQ(s, nullptr) << h << ": " << (s ? grt_status_message(s) : "");
    grt_status_free(s);
    EXPECT_EQ(t ? grt_tensor_num_elements(t) : -1, 1) << h;
    grt_tensor_free(t);
  }
}

}  // namespace
