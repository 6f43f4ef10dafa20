// Runs a libFuzzer target without libFuzzer, so `bazel test` can exercise it
// with gcc: every file or directory named on the command line is replayed,
// then each seed is mutated (bit flips, byte sets, truncations, splices) for
// a fixed number of iterations with a fixed seed, so a failure reproduces.
// GRT_FUZZ_SECONDS=S runs for S seconds instead (GRT_FUZZ_ITERATIONS=-1: no
// count limit), as scripts/fuzz_all.sh does where libFuzzer is missing.
// For long coverage-guided runs build the same target with clang
// -fsanitize=fuzzer (see tests/fuzz/README.md).
#include <dirent.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void collect(const std::string& path, std::vector<std::string>* files) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR* d = opendir(path.c_str());
    if (!d) return;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      collect(path + "/" + name, files);
    }
    closedir(d);
  } else {
    files->push_back(path);
  }
}

int main(int argc, char** argv) {
  long iterations = 2000;
  if (const char* e = getenv("GRT_FUZZ_ITERATIONS")) iterations = atol(e);
  double seconds = 0;
  if (const char* e = getenv("GRT_FUZZ_SECONDS")) seconds = atof(e);
  const auto start = std::chrono::steady_clock::now();
  auto out_of_time = [&] {
    return seconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >=
               seconds;
  };
  std::vector<std::string> files;
  for (int i = 1; i < argc; i++) collect(argv[i], &files);
  std::vector<std::string> seeds;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(seeds.back().data()),
                           seeds.back().size());
  }
  if (seeds.empty()) seeds.push_back(std::string());
  std::mt19937_64 rng(20261122);
  long it = 0;
  for (; (iterations < 0 || it < iterations) && !(it % 256 == 0 && out_of_time()); it++) {
    std::string s = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < edits; k++) {
      switch (rng() % 5) {
        case 0:
          if (!s.empty()) s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
          break;
        case 1:
          if (!s.empty()) s[rng() % s.size()] = static_cast<char>(rng());
          break;
        case 2:
          if (!s.empty()) s.resize(rng() % s.size());
          break;
        case 3: {
          const std::string& o = seeds[rng() % seeds.size()];
          if (!o.empty() && !s.empty()) {
            size_t at = rng() % s.size(), from = rng() % o.size();
            size_t n = std::min(o.size() - from, static_cast<size_t>(rng() % 64));
            s.replace(at, std::min(n, s.size() - at), o, from, n);
          }
          break;
        }
        default:
          if (!s.empty()) {
            // Interesting integers stamped over 4 bytes: offsets and counts.
            static const uint32_t kVals[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 64};
            uint32_t v = kVals[rng() % 6];
            size_t at = rng() % s.size();
            for (int b = 0; b < 4 && at + b < s.size(); b++)
              s[at + b] = static_cast<char>(v >> (8 * b));
          }
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  printf("fuzz: %zu seeds replayed, %ld mutated inputs, no crash\n", files.size(), it);
  return 0;
}
