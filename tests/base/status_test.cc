// grt/status.h: where a status was made (grt_status_source, recorded in
// builds without NDEBUG) and context added on the way up
// (grt_status_prefix, GRT_RETURN_IF_ERROR_ANNOTATED), including when the
// memory for that context runs out.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "base/device_name.h"
#include "base/mem.h"
#include "base/status.h"

namespace {

struct StatusDeleter {
  void operator()(grt_status* s) const { grt_status_free(s); }
};
using StatusPtr = std::unique_ptr<grt_status, StatusDeleter>;

std::string Source(const grt_status* s) {
  const char* src = grt_status_source(s);
  return src ? src : "(none)";
}

// The line number after the last ':' of a source, or -1.
int SourceLine(const std::string& src) {
  size_t colon = src.rfind(':');
  if (colon == std::string::npos) return -1;
  return atoi(src.c_str() + colon + 1);
}

TEST(StatusSource, RecordsTheCallersFileAndLine) {
  StatusPtr s(grt_status_new(GRT_INTERNAL, "something broke: %d", 42));
  const int line = __LINE__ - 1;
  EXPECT_STREQ(grt_status_message(s.get()), "something broke: 42");  // message unchanged
  EXPECT_EQ(grt_status_code(s.get()), GRT_INTERNAL);
#if GRT_STATUS_SOURCES
  EXPECT_EQ(Source(s.get()), "tests/base/status_test.cc:" + std::to_string(line));
#else
  EXPECT_EQ(grt_status_source(s.get()), nullptr);
  (void)line;
#endif
}

#ifndef NDEBUG
// Builds without NDEBUG (the default build, every test) record sources.
static_assert(GRT_STATUS_SOURCES, "a build without NDEBUG must record status sources");
#endif

// A library function's error names its file and a line inside the function
// that made it: the function's body is found in its source file.
TEST(StatusSource, NamesTheLibraryFunctionThatFailed) {
  grt_device_name n;
  StatusPtr s(grt_device_name_parse("/job:a/job:b/bogus", &n));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grt_status_code(s.get()), GRT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(grt_status_message(s.get())).find("base/"), std::string::npos)
      << "the source leaked into the message: " << grt_status_message(s.get());
#if !GRT_STATUS_SOURCES
  // The library is built as this test is (-c opt: NDEBUG, no sources).
  EXPECT_EQ(grt_status_source(s.get()), nullptr);
  return;
#endif
  std::string src = Source(s.get());
  ASSERT_EQ(src.rfind("base/device_name.c:", 0), 0u) << src;
  std::ifstream in("base/device_name.c");
  ASSERT_TRUE(in.good()) << "base/device_name.c is not in the runfiles";
  int first = 0, last = 0, at = 0;
  for (std::string l; std::getline(in, l);) {
    at++;
    if (!first && l.rfind("grt_status* grt_device_name_parse(", 0) == 0) first = at;
    if (first && !last && l == "}") last = at;
  }
  ASSERT_GT(first, 0);
  ASSERT_GT(last, first);
  int line = SourceLine(src);
  EXPECT_GT(line, first) << src;
  EXPECT_LT(line, last) << src;
}

TEST(StatusSource, NoneWithoutAFileOrThroughTheFunction) {
  StatusPtr a(grt_status_new_at(nullptr, 7, GRT_NOT_FOUND, "x"));
  EXPECT_EQ(grt_status_source(a.get()), nullptr);
  EXPECT_STREQ(grt_status_message(a.get()), "x");
  // The exported function itself (what a caller built without sources
  // gets, or one that takes its address) records none.
  StatusPtr b((grt_status_new)(GRT_NOT_FOUND, "y %s", "z"));
  EXPECT_EQ(grt_status_source(b.get()), nullptr);
  EXPECT_STREQ(grt_status_message(b.get()), "y z");
  EXPECT_EQ(grt_status_source(nullptr), nullptr);
  // GRT_OK is still taken as UNKNOWN.
  StatusPtr c(grt_status_new_at("f.c", 1, GRT_OK, "w"));
  EXPECT_EQ(grt_status_code(c.get()), GRT_UNKNOWN);
  EXPECT_EQ(Source(c.get()), "f.c:1");
}

// The file name is copied: a plugin's status outlives its string constants.
TEST(StatusSource, CopiesTheFileName) {
  std::string long_name(600, 'd');
  long_name += "/plugin.c";
  char* file = strdup(long_name.c_str());
  StatusPtr s(grt_status_new_at(file, 123, GRT_INTERNAL, "m"));
  memset(file, 'X', strlen(file));
  free(file);
  EXPECT_EQ(Source(s.get()), long_name + ":123");
}

TEST(StatusSource, OutOfMemoryGivesTheStaticStatusWithNone) {
  grt_mem_fail_after(0);
  grt_status* s = grt_status_new(GRT_INTERNAL, "never made");
  grt_mem_fail_after(-1);
  EXPECT_EQ(s, grt_status_out_of_memory());
  EXPECT_EQ(grt_status_code(s), GRT_RESOURCE_EXHAUSTED);
  EXPECT_STREQ(grt_status_message(s), "out of memory");
  EXPECT_EQ(grt_status_source(s), nullptr);
  grt_status_free(s);  // a no-op for the static status
}

TEST(StatusPrefix, KeepsCodeAndSource) {
  grt_status* s = grt_status_new_at("ops/x.c", 9, GRT_DATA_LOSS, "bad byte at %d", 3);
  s = grt_status_prefix(s, "reading %s", "model.grt");
  StatusPtr p(s);
  EXPECT_STREQ(grt_status_message(s), "reading model.grt: bad byte at 3");
  EXPECT_EQ(grt_status_code(s), GRT_DATA_LOSS);
  EXPECT_EQ(Source(s), "ops/x.c:9");
  s = grt_status_prefix(p.release(), "outer");
  p.reset(s);
  EXPECT_STREQ(grt_status_message(s), "outer: reading model.grt: bad byte at 3");
  EXPECT_EQ(Source(s), "ops/x.c:9");
  EXPECT_EQ(grt_status_prefix(nullptr, "x"), nullptr);
}

// A prefix longer than any fixed buffer is kept whole.
TEST(StatusPrefix, LongContextKeptWhole) {
  std::string ctx(5000, 'c');
  StatusPtr s(
      grt_status_prefix(grt_status_new_at(nullptr, 0, GRT_INTERNAL, "end"), "%s", ctx.c_str()));
  EXPECT_EQ(std::string(grt_status_message(s.get())), ctx + ": end");
  EXPECT_EQ(grt_status_source(s.get()), nullptr);
}

// When the longer message cannot be allocated, the original status comes
// back unchanged: the same object, message, code and source.
TEST(StatusPrefix, AllocationFailureKeepsTheOriginal) {
  grt_status* s = grt_status_new_at("base/y.c", 77, GRT_NOT_FOUND, "no such file");
  grt_mem_fail_once_after(0);
  grt_status* out = grt_status_prefix(s, "loading %s", "plugin.so");
  grt_mem_fail_once_after(-1);
  StatusPtr p(out);
  EXPECT_EQ(out, s);
  EXPECT_STREQ(grt_status_message(out), "no such file");
  EXPECT_EQ(grt_status_code(out), GRT_NOT_FOUND);
  EXPECT_EQ(Source(out), "base/y.c:77");
  // The static out-of-memory status takes no context and is never freed.
  EXPECT_EQ(grt_status_prefix(const_cast<grt_status*>(grt_status_out_of_memory()), "ctx"),
            grt_status_out_of_memory());
  EXPECT_STREQ(grt_status_message(grt_status_out_of_memory()), "out of memory");
}

int g_formatted = 0;
const char* Counted(const char* s) {
  g_formatted++;
  return s;
}

grt_status* Step(bool fail) {
  return fail ? grt_status_new_at("base/z.c", 5, GRT_UNAVAILABLE, "device gone") : nullptr;
}

grt_status* Load(bool fail, const char* path) {
  GRT_RETURN_IF_ERROR_ANNOTATED(Step(fail), "while loading %s", Counted(path));
  return nullptr;
}

TEST(StatusAnnotate, ReturnIfErrorAnnotated) {
  g_formatted = 0;
  EXPECT_EQ(Load(false, "a.grt"), nullptr);
  EXPECT_EQ(g_formatted, 0) << "the context was formatted for a success";
  StatusPtr s(Load(true, "a.grt"));
  EXPECT_EQ(g_formatted, 1);
  EXPECT_STREQ(grt_status_message(s.get()), "while loading a.grt: device gone");
  EXPECT_EQ(grt_status_code(s.get()), GRT_UNAVAILABLE);
  EXPECT_EQ(Source(s.get()), "base/z.c:5");
}

// Every allocation of the annotated path failing in turn: each gives the
// error, with or without its context, and nothing leaks (ASan's leak check).
TEST(StatusAnnotate, EveryAllocationFailing) {
  for (int64_t k = 0;; k++) {
    grt_mem_fail_after(k);
    grt_status* s = Load(true, "b.grt");
    int64_t made = grt_mem_fail_after(-1);
    ASSERT_NE(s, nullptr);
    std::string m = grt_status_message(s);
    if (s == grt_status_out_of_memory()) {
      EXPECT_EQ(k, 0);
      EXPECT_EQ(m, "out of memory");
    } else if (k == 1) {
      EXPECT_EQ(m, "device gone");  // made, but no room for the context
      EXPECT_EQ(Source(s), "base/z.c:5");
    } else {
      EXPECT_EQ(m, "while loading b.grt: device gone");
    }
    grt_status_free(s);
    if (made <= k) break;  // nothing failed: every allocation was tried
  }
}

}  // namespace
