// Checkpoint files for tests (docs/checkpoint-format.md): good ones written
// by the library's own writer, and the bad-input cases, each corrupting one
// thing in a good file and naming the error the reader must give. Shared by
// ckpt_bad_input_test and make_corpus, which writes them to
// tests/format_ckpt/corpus/ and bad/.
#ifndef GRT_TESTS_FORMAT_CKPT_CKPT_CASES_H_
#define GRT_TESTS_FORMAT_CKPT_CKPT_CASES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "grt/status.h"

namespace grt_test {

// The good seeds, by name: "vars" (every dtype, a scalar, an empty tensor,
// nested names; the base of the bad cases), "none" (no variables), "one"
// (a single float32 scalar).
std::vector<std::pair<std::string, std::string>> CkptSeeds();

// The "vars" seed.
std::string CkptBase();

struct CkptBadCase {
  std::string name;
  grt_code code;
  // Turns the good file into the bad one and returns a distinctive part of
  // the expected message.
  std::function<std::string(std::string* bytes)> make;
};

std::vector<CkptBadCase> CkptBadCases();

// Where one index record's fields are in a file (byte offsets).
struct CkptRecord {
  size_t name_len_at, name_at, dtype_at, rank_at, dims_at, offset_at, size_at, crc_at, end;
  std::string name;
};
// The records of a well-formed file, in order.
std::vector<CkptRecord> CkptRecords(const std::string& bytes);

// After an edit: sets the header's file size to the length and recomputes
// the index's and the header's checksums (with_data: also every record's
// data checksum, for a file whose records are still well formed).
void CkptFixChecksums(std::string* bytes, bool with_data = false);

uint32_t CkptGet32(const std::string& b, size_t at);
uint64_t CkptGet64(const std::string& b, size_t at);
void CkptPut32(std::string* b, size_t at, uint32_t v);
void CkptPut64(std::string* b, size_t at, uint64_t v);

}  // namespace grt_test

#endif  // GRT_TESTS_FORMAT_CKPT_CKPT_CASES_H_
