#include "tests/format_ckpt/ckpt_cases.h"

#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/tensor.h"
#include "graph_format/checkpoint_format.h"
#include "grt/grt.h"

namespace grt_test {

uint32_t CkptGet32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= static_cast<uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}
uint64_t CkptGet64(const std::string& b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}
void CkptPut32(std::string* b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; i++) (*b)[at + i] = static_cast<char>(v >> (8 * i));
}
void CkptPut64(std::string* b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; i++) (*b)[at + i] = static_cast<char>(v >> (8 * i));
}

namespace {

uint32_t Crc(const std::string& b, size_t at, size_t n) {
  return static_cast<uint32_t>(
      crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(b.data() + at), n));
}

struct Var {
  const char* name;
  grt_dtype dtype;
  std::vector<int64_t> dims;
};

// A checkpoint of `vars`, written by the library's writer; element bytes
// follow a fixed pattern (bools 0 or 1).
std::string Write(const std::vector<Var>& vars) {
  std::vector<grt_tensor*> tensors;
  std::vector<grt_ckpt_var> cv;
  for (const Var& v : vars) {
    grt_tensor* t = nullptr;
    grt_status* s = grt_tensor_new(v.dtype, static_cast<int32_t>(v.dims.size()), v.dims.data(), &t);
    if (s) {
      fprintf(stderr, "ckpt_cases: %s\n", grt_status_message(s));
      abort();
    }
    unsigned char* p = static_cast<unsigned char*>(grt_tensor_data(t));
    size_t n = grt_tensor_byte_size(t);
    for (size_t i = 0; i < n; i++)
      p[i] = v.dtype == GRT_BOOL ? static_cast<unsigned char>(i % 3 != 1)
                                 : static_cast<unsigned char>(i * 37 + strlen(v.name));
    tensors.push_back(t);
    cv.push_back({v.name, t});
  }
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  grt_status* s = grt_ckpt_write(f, cv.data(), static_cast<int32_t>(cv.size()));
  fclose(f);
  if (s) {
    fprintf(stderr, "ckpt_cases: %s\n", grt_status_message(s));
    abort();
  }
  std::string out(buf, len);
  free(buf);
  for (grt_tensor* t : tensors) grt_tensor_free(t);
  return out;
}

// The record of `name` in a well-formed file.
CkptRecord Rec(const std::string& b, const std::string& name) {
  for (const CkptRecord& r : CkptRecords(b))
    if (r.name == name) return r;
  fprintf(stderr, "ckpt_cases: no record %s\n", name.c_str());
  abort();
}

size_t DataAt(const std::string& b, const std::string& name) {
  return static_cast<size_t>(CkptGet64(b, Rec(b, name).offset_at));
}

std::string Str(uint64_t v) { return std::to_string(v); }

}  // namespace

std::vector<CkptRecord> CkptRecords(const std::string& b) {
  std::vector<CkptRecord> out;
  uint32_t n = CkptGet32(b, 12);
  size_t at = static_cast<size_t>(CkptGet64(b, 16));
  for (uint32_t i = 0; i < n; i++) {
    CkptRecord r;
    r.name_len_at = at;
    uint32_t name_len = CkptGet32(b, at);
    r.name_at = at + 4;
    r.name = b.substr(r.name_at, name_len);
    r.dtype_at = r.name_at + name_len;
    r.rank_at = r.dtype_at + 4;
    r.dims_at = r.rank_at + 4;
    r.offset_at = r.dims_at + 8 * CkptGet32(b, r.rank_at);
    r.size_at = r.offset_at + 8;
    r.crc_at = r.size_at + 8;
    r.end = r.crc_at + 4;
    at = r.end;
    out.push_back(r);
  }
  return out;
}

void CkptFixChecksums(std::string* b, bool with_data) {
  if (b->size() < GRT_CKPT_HEADER_SIZE) return;
  CkptPut64(b, 32, b->size());
  if (with_data)
    for (const CkptRecord& r : CkptRecords(*b))
      CkptPut32(b, r.crc_at, Crc(*b, CkptGet64(*b, r.offset_at), CkptGet64(*b, r.size_at)));
  uint64_t off = CkptGet64(*b, 16), size = CkptGet64(*b, 24);
  if (off <= b->size() && size <= b->size() - off) CkptPut32(b, 40, Crc(*b, off, size));
  CkptPut32(b, 44, Crc(*b, 0, 44));
}

std::vector<std::pair<std::string, std::string>> CkptSeeds() {
  std::vector<Var> vars = {
      {"w", GRT_FLOAT32, {2, 3}},     {"layer1/bias", GRT_FLOAT64, {3}},
      {"global_step", GRT_INT64, {}}, {"mask", GRT_BOOL, {5}},
      {"h", GRT_FLOAT16, {2, 2}},     {"bf", GRT_BFLOAT16, {3}},
      {"i8", GRT_INT8, {4}},          {"i16", GRT_INT16, {2}},
      {"i32", GRT_INT32, {2, 1}},     {"u8", GRT_UINT8, {3}},
      {"empty", GRT_FLOAT32, {0, 4}}, {"deep", GRT_FLOAT32, {1, 1, 1, 1, 1, 1, 1, 2}},
  };
  return {
      {"vars", Write(vars)},
      {"none", Write({})},
      {"one", Write({{"x", GRT_FLOAT32, {}}})},
  };
}

std::string CkptBase() { return CkptSeeds()[0].second; }

std::vector<CkptBadCase> CkptBadCases() {
  using B = std::string*;
  const uint64_t kMax = UINT64_MAX;
  return {
      {"empty_file", GRT_DATA_LOSS,
       [](B b) {
         b->clear();
         return "not a grt checkpoint (no header; 0 bytes)";
       }},
      {"short_header", GRT_DATA_LOSS,
       [](B b) {
         b->resize(47);
         return "not a grt checkpoint (no header; 47 bytes)";
       }},
      {"bad_magic", GRT_DATA_LOSS,
       [](B b) {
         (*b)[0] = 'X';
         CkptFixChecksums(b);
         return "not a grt checkpoint";
       }},
      {"header_checksum", GRT_DATA_LOSS,
       [](B b) {
         (*b)[12] ^= 1;
         return "the header's checksum does not match";
       }},
      {"newer_version", GRT_FAILED_PRECONDITION,
       [](B b) {
         CkptPut32(b, 8, 2);
         CkptFixChecksums(b);
         return "checkpoint version 2; this grt reads version 1";
       }},
      {"truncated", GRT_DATA_LOSS,
       [](B b) {
         b->resize(b->size() - 1);
         return "truncated or extended: the header says " + Str(b->size() + 1) +
                " bytes, the file has " + Str(b->size());
       }},
      {"extended", GRT_DATA_LOSS,
       [](B b) {
         b->push_back('\0');
         return "truncated or extended: the header says " + Str(b->size() - 1) +
                " bytes, the file has " + Str(b->size());
       }},
      {"index_past_end", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, 24, b->size());
         CkptFixChecksums(b);
         return "the index lies outside the file";
       }},
      {"index_in_header", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, 16, 40);
         CkptFixChecksums(b);
         return "the index lies outside the file";
       }},
      {"index_offset_huge", GRT_DATA_LOSS,
       [kMax](B b) {
         CkptPut64(b, 16, kMax);
         CkptFixChecksums(b);
         return "the index lies outside the file";
       }},
      {"index_size_wraps", GRT_DATA_LOSS,
       [kMax](B b) {
         CkptPut64(b, 24, kMax - 40);
         CkptFixChecksums(b);
         return "the index lies outside the file";
       }},
      {"index_checksum", GRT_DATA_LOSS,
       [](B b) {
         (*b)[Rec(*b, "w").name_at] = 'v';
         return "the index's checksum does not match";
       }},
      {"count_huge", GRT_DATA_LOSS,
       [](B b) {
         CkptPut32(b, 12, 0xffffffffu);
         CkptFixChecksums(b);
         return "4294967295 variables cannot fit in a " + Str(CkptGet64(*b, 24)) + "-byte index";
       }},
      {"count_one_more", GRT_DATA_LOSS,
       [](B b) {
         uint32_t n = CkptGet32(*b, 12);
         CkptPut32(b, 12, n + 1);
         CkptFixChecksums(b);
         return "index entry " + Str(n) + " runs past the end of the index";
       }},
      {"count_one_less", GRT_DATA_LOSS,
       [](B b) {
         std::vector<CkptRecord> r = CkptRecords(*b);
         uint32_t n = CkptGet32(*b, 12);
         CkptPut32(b, 12, n - 1);
         CkptFixChecksums(b);
         return "the index has " + Str(r.back().end - r.back().name_len_at) +
                " bytes after its last entry";
       }},
      {"name_length_huge", GRT_DATA_LOSS,
       [](B b) {
         CkptPut32(b, Rec(*b, "w").name_len_at, 0xffffffffu);
         CkptFixChecksums(b);
         return "index entry 0 runs past the end of the index";
       }},
      {"dtype_zero", GRT_DATA_LOSS,
       [](B b) {
         CkptPut32(b, Rec(*b, "w").dtype_at, 0);
         CkptFixChecksums(b);
         return "variable 'w': bad dtype 0 or rank 2";
       }},
      {"dtype_past_last", GRT_DATA_LOSS,
       [](B b) {
         CkptPut32(b, Rec(*b, "mask").dtype_at, GRT_NUM_DTYPES);
         CkptFixChecksums(b);
         return "variable 'mask': bad dtype " + Str(GRT_NUM_DTYPES) + " or rank 1";
       }},
      {"rank_nine", GRT_DATA_LOSS,
       [](B b) {
         CkptPut32(b, Rec(*b, "deep").rank_at, GRT_MAX_RANK + 1);
         CkptFixChecksums(b);
         return "variable 'deep': bad dtype 3 or rank 9";
       }},
      {"dim_huge", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, Rec(*b, "w").dims_at, uint64_t{1} << 63);
         CkptFixChecksums(b);
         return "variable 'w': bad dimension";
       }},
      {"dims_overflow", GRT_DATA_LOSS,
       [](B b) {
         CkptRecord r = Rec(*b, "w");
         CkptPut64(b, r.dims_at, uint64_t{1} << 40);
         CkptPut64(b, r.dims_at + 8, uint64_t{1} << 40);
         CkptFixChecksums(b);
         return "variable 'w': 24 data bytes do not fit its shape";
       }},
      {"shape_changed", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, Rec(*b, "w").dims_at, 3);
         CkptFixChecksums(b);
         return "variable 'w': 24 data bytes do not fit its shape";
       }},
      {"size_changed", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, Rec(*b, "layer1/bias").size_at, 32);
         CkptFixChecksums(b);
         return "variable 'layer1/bias': 32 data bytes do not fit its shape";
       }},
      {"data_past_end", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, Rec(*b, "w").offset_at, b->size());
         CkptFixChecksums(b);
         return "variable 'w': its data lies outside the file";
       }},
      {"data_in_index", GRT_DATA_LOSS,
       [](B b) {
         CkptPut64(b, Rec(*b, "w").offset_at, GRT_CKPT_HEADER_SIZE);
         CkptFixChecksums(b);
         return "variable 'w': its data lies outside the file";
       }},
      {"data_offset_wraps", GRT_DATA_LOSS,
       [kMax](B b) {
         CkptPut64(b, Rec(*b, "w").offset_at, kMax - 7);
         CkptFixChecksums(b);
         return "variable 'w': its data lies outside the file";
       }},
      {"data_misaligned", GRT_DATA_LOSS,
       [](B b) {
         size_t at = DataAt(*b, "w");
         CkptPut64(b, Rec(*b, "w").offset_at, at + 4);
         CkptFixChecksums(b);
         return "variable 'w': its data offset " + Str(at + 4) + " is not a multiple of 64";
       }},
      {"data_checksum", GRT_DATA_LOSS,
       [](B b) {
         (*b)[DataAt(*b, "i32") + 5] ^= 0x10;
         return "variable 'i32': the data's checksum does not match";
       }},
      {"record_checksum", GRT_DATA_LOSS,
       [](B b) {
         size_t at = Rec(*b, "global_step").crc_at;
         CkptPut32(b, at, CkptGet32(*b, at) + 1);
         CkptFixChecksums(b);
         return "variable 'global_step': the data's checksum does not match";
       }},
      {"duplicate_name", GRT_DATA_LOSS,
       [](B b) {
         (*b)[Rec(*b, "h").name_at] = 'w';
         CkptFixChecksums(b);
         return "variable 'w' appears twice";
       }},
      {"bool_not_0_or_1", GRT_DATA_LOSS,
       [](B b) {
         (*b)[DataAt(*b, "mask") + 3] = 2;
         CkptFixChecksums(b, /*with_data=*/true);
         return "variable 'mask': bool element 3 is 2, not 0 or 1";
       }},
  };
}

}  // namespace grt_test
