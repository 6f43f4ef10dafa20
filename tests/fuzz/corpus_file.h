// Writing a corpus file (the make_corpus tools of the format tests): the
// bytes to `path`, replacing it; false with a line on stderr when that fails.
#ifndef GRT_TESTS_FUZZ_CORPUS_FILE_H_
#define GRT_TESTS_FUZZ_CORPUS_FILE_H_

#include <cstdio>
#include <fstream>
#include <string>

namespace grt_test {

inline bool WriteCorpusFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.good()) {
    fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace grt_test

#endif  // GRT_TESTS_FUZZ_CORPUS_FILE_H_
