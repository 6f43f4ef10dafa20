// Writes the checkpoint test corpora from ckpt_cases.cc:
//   <dir>/bad/<case>.ckpt     one corrupted file per case
//   <dir>/corpus/<name>.ckpt  good seed files for the fuzz target
// Run after a format change:
//   bazel run //tests/format_ckpt:make_corpus -- "$PWD/tests/format_ckpt"
#include <cstdio>
#include <string>

#include "tests/fuzz/corpus_file.h"
#include "tests/format_ckpt/ckpt_cases.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_corpus DIR (the tests/format_ckpt folder)\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = true;
  std::string base = grt_test::CkptBase();
  int n = 0, seeds = 0;
  for (const grt_test::CkptBadCase& c : grt_test::CkptBadCases()) {
    std::string b = base;
    c.make(&b);
    ok &= grt_test::WriteCorpusFile(dir + "/bad/" + c.name + ".ckpt", b);
    n++;
  }
  for (const auto& seed : grt_test::CkptSeeds()) {
    ok &= grt_test::WriteCorpusFile(dir + "/corpus/" + seed.first + ".ckpt", seed.second);
    seeds++;
  }
  printf("wrote %d bad files and %d seeds under %s\n", n, seeds, dir.c_str());
  return ok ? 0 : 1;
}
