// Writes the .grt test corpora from the cases in grt_bad_cases.cc:
//   <dir>/bad/<case>.grt     one corrupted file per case
//   <dir>/corpus/<name>.grt  good seed files for the fuzz target
// Run after a format change:
//   bazel run //tests/format_grt:make_corpus -- "$PWD/tests/format_grt"
#include <cstdio>
#include <string>

#include "tests/fuzz/corpus_file.h"
#include "tests/format_grt/grt_bad_cases.h"
#include "tests/format_grt/grt_test_util.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_corpus DIR (the tests/format_grt folder)\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = true;
  std::string base = grt_test::BadCaseBase();
  int n = 0;
  for (const grt_test::BadCase& c : grt_test::BadCases()) {
    std::string b = base;
    c.make(&b);
    ok &= grt_test::WriteCorpusFile(dir + "/bad/" + c.name + ".grt", b);
    n++;
  }
  grt_graph* empty = nullptr;
  grt_status_free(grt_graph_new(&empty));
  grt_test::GraphPtr e(empty);
  ok &= grt_test::WriteCorpusFile(dir + "/corpus/every_attr.grt", base);
  ok &= grt_test::WriteCorpusFile(dir + "/corpus/small_valid.grt",
                                  grt_test::WriteGrt(grt_test::MakeSmallValidGraph().get()));
  ok &= grt_test::WriteCorpusFile(dir + "/corpus/empty_graph.grt", grt_test::WriteGrt(e.get()));
  printf("wrote %d bad files and 3 seeds under %s\n", n, dir.c_str());
  return ok ? 0 : 1;
}
