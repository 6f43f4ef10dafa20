#include "tests/format_grt/grt_bad_cases.h"

#include <gtest/gtest.h>

#include <cstring>

#include "graph_format/grt_file_format.h"
#include "ops/graph.h"
#include "tests/format_grt/grt_test_util.h"

namespace grt_test {
namespace {

// Node indices in MakeEveryAttrGraph.
constexpr int kFloat32Const = 2;
constexpr int kEvery = 13;
constexpr int kBare = 14;

std::string Fmt(const char* fmt, unsigned long long a = 0, unsigned long long b = 0,
                unsigned long long c = 0) {
  char buf[512];
  snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

uint64_t Attr(const std::string& b, int node, const char* name) {
  int64_t at = AttrRecord(b, node, name);
  EXPECT_GE(at, 0) << name;
  return static_cast<uint64_t>(at < 0 ? 0 : at);
}

uint64_t ShapeRecord(const std::string& b, const char* attr) {
  uint64_t at = Attr(b, kEvery, attr);
  return Section(b, GRT_SECTION_SHAPES).offset + Get64(b, at + 8) * 8;
}

uint64_t WordsAt(const std::string& b, uint64_t index) {
  return Section(b, GRT_SECTION_WORDS).offset + index * 8;
}

// A patch of one field, then a fixed checksum so the structural check (not
// the checksum) must catch it.
BadCase Patch32(const char* name, grt_code code, std::function<uint64_t(const std::string&)> where,
                uint32_t value, std::function<std::string(const std::string&, uint64_t)> message) {
  return {name, code, [=](std::string* b) {
            uint64_t at = where(*b);
            std::string m = message(*b, at);
            Put32(b, at, value);
            FixChecksum(b);
            return m;
          }};
}

BadCase Patch64(const char* name, grt_code code, std::function<uint64_t(const std::string&)> where,
                std::function<uint64_t(const std::string&, uint64_t old)> value,
                std::function<std::string(const std::string&, uint64_t)> message) {
  return {name, code, [=](std::string* b) {
            uint64_t at = where(*b);
            uint64_t v = value(*b, Get64(*b, at));
            std::string m = message(*b, at);
            Put64(b, at, v);
            FixChecksum(b);
            return m;
          }};
}

std::function<std::string(const std::string&, uint64_t)> Text(const std::string& s) {
  return [s](const std::string&, uint64_t) { return s; };
}

// A file whose strings, referenced over and over, add up to far more than
// the reader's budget (16 MiB + 64 x the record bytes): one 32 KiB string
// used 1000 times by a list(string).
std::string StringBudgetFile() {
  grt_graph* raw = nullptr;
  grt_status_free(grt_graph_new(&raw));
  GraphPtr g(raw);
  int32_t n = -1;
  grt_status_free(grt_graph_add_node(raw, "many_refs", "Fake", &n));
  std::string big(32 * 1024, 'x');
  const char* s = grt_arena_strdup(raw->arena, big.c_str());
  const int kCount = 1000;
  auto* items = static_cast<const char**>(grt_arena_calloc(raw->arena, kCount, sizeof(char*)));
  for (int i = 0; i < kCount; i++) items[i] = s;
  grt_attr_value v;
  memset(&v, 0, sizeof v);
  v.type = GRT_ATTR_LIST_STRING;
  v.u.list.n = kCount;
  v.u.list.v.s = items;
  grt_status_free(grt_graph_set_attr_value(raw, n, "strings", &v));
  return WriteGrt(raw);
}

}  // namespace

std::string BadCaseBase() {
  GraphPtr g = MakeEveryAttrGraph();
  return WriteGrt(g.get());
}

std::vector<BadCase> BadCases() {
  std::vector<BadCase> c;
  using S = const std::string&;

  // ---- not a .grt file, versions, sizes ---------------------------------
  c.push_back({"bad_magic", GRT_INVALID_ARGUMENT, [](std::string* b) {
                 (*b)[1] = 'X';
                 return std::string("not a .grt file: bad magic at offset 0");
               }});
  c.push_back({"empty_file", GRT_INVALID_ARGUMENT, [](std::string* b) {
                 b->clear();
                 return std::string("bad magic at offset 0");
               }});
  c.push_back({"json_text", GRT_INVALID_ARGUMENT, [](std::string* b) {
                 *b = "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": []}\n";
                 return std::string("bad magic at offset 0");
               }});
  c.push_back(Patch32(
      "newer_major", GRT_INVALID_ARGUMENT, [](S) { return 8; }, 2u | (3u << 16),
      Text("format version 2.3 (offset 8) is newer than this reader supports")));
  c.push_back(Patch32(
      "older_major", GRT_INVALID_ARGUMENT, [](S) { return 8; }, 0,
      Text("format version 0.0 (offset 8) is not supported")));
  c.push_back({"truncated_header", GRT_DATA_LOSS, [](std::string* b) {
                 b->resize(40);
                 return std::string(
                     "truncated: the file is 40 bytes, shorter than the 64-byte header");
               }});
  c.push_back({"truncated_data", GRT_DATA_LOSS, [](std::string* b) {
                 size_t n = b->size();
                 b->resize(n - 1);
                 return Fmt("says the file is %llu bytes but it is %llu (truncated or extended)", n,
                            n - 1);
               }});
  c.push_back({"truncated_metadata", GRT_DATA_LOSS, [](std::string* b) {
                 b->resize(Get64(*b, GRT_FILE_OFF_DATA) / 2);
                 return std::string("(truncated or extended)");
               }});
  c.push_back({"appended", GRT_DATA_LOSS, [](std::string* b) {
                 b->append(64, '\0');
                 return std::string("(truncated or extended)");
               }});
  c.push_back(Patch32(
      "header_size", GRT_DATA_LOSS, [](S) { return 12; }, 72,
      Text("header size 72 at offset 12 is invalid (expected 64)")));
  c.push_back(Patch64(
      "data_offset_misaligned", GRT_DATA_LOSS, [](S) { return 40; },
      [](S, uint64_t old) { return old - 8; },
      [](S b, uint64_t) {
        return Fmt("data offset %llu at offset 40 is not a multiple of 64", Get64(b, 40) - 8);
      }));
  c.push_back({"data_offset_past_end", GRT_DATA_LOSS, [](std::string* b) {
                 // Checked before the checksum, whose range it gives.
                 Put64(b, 40, (b->size() + 64) / 64 * 64);
                 return Fmt("at offset 40 is not a multiple of 64 in [64, %llu]", b->size());
               }});
  c.push_back({"checksum_mismatch", GRT_DATA_LOSS, [](std::string* b) {
                 (*b)[NodeRecord(*b, 3) + 13] ^= 0x10;  // no FixChecksum
                 return Fmt("checksum mismatch: the header (offset 36) says 0x%08llx",
                            Get32(*b, 36));
               }});
  c.push_back({"header_reserved", GRT_DATA_LOSS, [](std::string* b) {
                 (*b)[60] = 1;
                 FixChecksum(b);
                 return std::string("reserved header byte at offset 60 is not zero");
               }});

  // ---- section table --------------------------------------------------------
  c.push_back(Patch64(
      "section_table_out_of_range", GRT_DATA_LOSS, [](S) { return 24; },
      [](S b, uint64_t) { return b.size() + 64; }, Text("section table at offset")));
  c.push_back(Patch32(
      "section_count_huge", GRT_DATA_LOSS, [](S) { return 32; }, 0xffffffffu,
      Text("section table at offset 64 with 4294967295 entries")));
  c.push_back(Patch64(
      "section_offset_out_of_range", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_NODES).entry + 8; },
      [](S b, uint64_t) { return Get64(b, 40) + 64; },
      Text("is not an 8-aligned range inside the metadata")));
  c.push_back(Patch64(
      "section_length_past_end", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_TENSORS).entry + 16; },
      [](S, uint64_t) { return 0xffffffffffffffe0ull; }, Text("TENSORS section at offset")));
  c.push_back(Patch64(
      "section_misaligned", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_NODES).entry + 8; },
      [](S, uint64_t old) { return old + 4; },
      Text("is not an 8-aligned range inside the metadata")));
  c.push_back(Patch64(
      "section_length_not_multiple", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_NODES).entry + 16; },
      [](S, uint64_t old) { return old - 8; }, Text("not a multiple of its 32-byte records")));
  c.push_back(Patch32(
      "section_duplicate", GRT_DATA_LOSS, [](S b) { return Section(b, GRT_SECTION_INPUTS).entry; },
      GRT_SECTION_NODES, Text("a second NODES section")));
  c.push_back(Patch32(
      "section_unknown_type", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_INPUTS).entry; }, 99,
      Text("has unknown type 99 in a version 1.1 file")));
  c.push_back(Patch32(
      "section_entry_reserved", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_WORDS).entry + 4; }, 5,
      Text("WORDS section entry at offset")));
  c.push_back(Patch64(
      "section_overlap", GRT_DATA_LOSS, [](S b) { return Section(b, GRT_SECTION_ATTRS).entry + 8; },
      [](S b, uint64_t) { return Section(b, GRT_SECTION_NODES).offset; },
      Text("overlaps the NODES section")));
  // A section inside the 64-byte header, overlapping nothing else: only the
  // check that a section starts at or after the header refuses it (removing
  // that check was planted by hand and caught here).
  c.push_back({"section_in_header", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t entry = Section(*b, GRT_SECTION_NODES).entry;
                 Put64(b, entry + 8, 8);
                 Put64(b, entry + 16, 32);  // one 32-byte record: [8, 40)
                 FixChecksum(b);
                 return Fmt(
                     "NODES section at offset 8+32 (entry at offset %llu) is not an "
                     "8-aligned range inside the metadata [64, ",
                     entry);
               }});
  // A section that starts exactly at data_offset and so lies wholly in the
  // tensor data: only the length check refuses it (one that let a section
  // run 8 bytes past the metadata passed every other case).
  c.push_back({"section_in_data", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t entry = Section(*b, GRT_SECTION_WORDS).entry;
                 uint64_t data = Get64(*b, 40);
                 Put64(b, entry + 8, data);
                 Put64(b, entry + 16, 8);  // one 8-byte record: [data, data + 8)
                 FixChecksum(b);
                 return Fmt(
                     "WORDS section at offset %llu+8 (entry at offset %llu) is not an "
                     "8-aligned range inside the metadata [",
                     (unsigned long long)data, (unsigned long long)entry);
               }});
  c.push_back(Patch64(
      "section_overlaps_table", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_NODES).entry + 8; }, [](S, uint64_t) { return 64; },
      Text("overlaps the section table")));

  // ---- strings ---------------------------------------------------------------
  c.push_back({"string_not_terminated", GRT_DATA_LOSS, [](std::string* b) {
                 Range s = Section(*b, GRT_SECTION_STRINGS);
                 (*b)[s.offset + s.length - 1] = 'x';
                 FixChecksum(b);
                 return std::string(
                     "does not end with a NUL byte: its last string is not NUL-terminated");
               }});
  c.push_back({"string_table_start", GRT_DATA_LOSS, [](std::string* b) {
                 (*b)[Section(*b, GRT_SECTION_STRINGS).offset] = 'x';
                 FixChecksum(b);
                 return std::string("does not start with the empty string");
               }});
  c.push_back(Patch32(
      "string_ref_out_of_range", GRT_DATA_LOSS, [](S b) { return NodeRecord(b, kEvery) + 4; },
      0x7ffffff0u,
      [](S b, uint64_t at) {
        return Fmt(
            "node 13 ('attrs/every_type'): op: string ref 2147483632 at "
            "offset %llu is outside the string table (%llu bytes)",
            at, Section(b, GRT_SECTION_STRINGS).length);
      }));
  c.push_back({"string_ref_mid_string", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t at = NodeRecord(*b, kEvery);
                 Put32(b, at, Get32(*b, at) + 1);
                 FixChecksum(b);
                 return Fmt(
                     "node 13: name: string ref %llu at offset %llu points into the middle "
                     "of a string",
                     Get32(*b, at), at);
               }});
  c.push_back({"node_name_invalid", GRT_DATA_LOSS, [](std::string* b) {
                 Range s = Section(*b, GRT_SECTION_STRINGS);
                 std::string needle("\0bare\0", 6);
                 size_t at = b->find(needle, s.offset);
                 EXPECT_NE(at, std::string::npos);
                 (*b)[at + 3] = ' ';  // "ba e"
                 FixChecksum(b);
                 return std::string("node 14 ('ba e'): record at offset ") +
                        std::to_string(NodeRecord(*b, kBare)) + ": node name 'ba e' is invalid";
               }});
  c.push_back({"node_name_duplicate", GRT_DATA_LOSS, [](std::string* b) {
                 Put32(b, NodeRecord(*b, kBare), Get32(*b, NodeRecord(*b, 0)));
                 FixChecksum(b);
                 return std::string("duplicate node name 'consts/float16'");
               }});
  c.push_back({"string_budget", GRT_DATA_LOSS, [](std::string* b) {
                 *b = StringBudgetFile();
                 return std::string("the strings referenced add up to more than the limit");
               }});

  // ---- nodes and inputs -------------------------------------------------------
  c.push_back(Patch32(
      "node_reserved", GRT_DATA_LOSS, [](S b) { return NodeRecord(b, kBare) + 28; }, 1,
      Text("node 14 ('bare'): node record at offset")));
  c.push_back(Patch32(
      "node_count_out_of_range", GRT_DATA_LOSS, [](S b) { return NodeRecord(b, kBare) + 16; },
      0x80000000u, Text("count 2147483648 at offset")));
  c.push_back({"inputs_overrun", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t at = NodeRecord(*b, kEvery) + 12;
                 Put32(b, at, 103);
                 FixChecksum(b);
                 return Fmt("inputs at offset %llu: 103 INPUTS records needed but only 3 are left",
                            at);
               }});
  c.push_back({"records_unused", GRT_DATA_LOSS, [](std::string* b) {
                 Put32(b, NodeRecord(*b, kEvery) + 12, 2);
                 FixChecksum(b);
                 return Fmt("INPUTS section at offset %llu has 3 records but the graph uses 2",
                            Section(*b, GRT_SECTION_INPUTS).offset);
               }});
  c.push_back(Patch32(
      "port_out_of_range", GRT_DATA_LOSS,
      [](S b) { return Section(b, GRT_SECTION_INPUTS).offset + 4; }, 0x80000000u,
      Text("input 0 at offset")));

  // ---- attrs ---------------------------------------------------------------------
  c.push_back(Patch32(
      "attr_type_invalid", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "b_true") + 4; }, 9,
      [](S, uint64_t at) {
        return Fmt(
            "node 13 ('attrs/every_type'): attr 'b_true': attr type 9 at "
            "offset %llu is not a grt_attr_type",
            at);
      }));
  c.push_back(Patch32(
      "attr_type_none", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "b_true") + 4; }, 0,
      Text("attr type 0 at offset")));
  c.push_back({"attrs_unsorted", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t x = Attr(*b, kEvery, "b_false"), y = Attr(*b, kEvery, "b_true");
                 EXPECT_EQ(y, x + 16);
                 uint32_t nx = Get32(*b, x), ny = Get32(*b, y);
                 Put32(b, x, ny);
                 Put32(b, y, nx);
                 FixChecksum(b);
                 return std::string("attr 'b_false': attr record at offset ") + std::to_string(y) +
                        " is not in strictly increasing name order (after 'b_true')";
               }});
  c.push_back({"attr_duplicate", GRT_DATA_LOSS, [](std::string* b) {
                 uint64_t x = Attr(*b, kEvery, "b_false"), y = Attr(*b, kEvery, "b_true");
                 Put32(b, y, Get32(*b, x));
                 FixChecksum(b);
                 return std::string("is not in strictly increasing name order (after 'b_false')");
               }});
  c.push_back(Patch64(
      "bool_not_0_or_1", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "b_true") + 8; },
      [](S, uint64_t) { return 2; },
      [](S, uint64_t at) { return Fmt("bool at offset %llu is 2, not 0 or 1", at); }));
  c.push_back(Patch64(
      "float_high_bits", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "f_inf") + 8; },
      [](S, uint64_t old) { return old | (1ull << 40); }, Text("attr 'f_inf': float at offset")));
  c.push_back(Patch64(
      "dtype_invalid", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "type") + 8; },
      [](S, uint64_t) { return 11; }, Text("dtype 11 at offset")));
  c.push_back(Patch64(
      "dtype_zero", GRT_DATA_LOSS, [](S b) { return Attr(b, kFloat32Const, "dtype") + 8; },
      [](S, uint64_t) { return 0; },
      Text("node 2 ('consts/float32'): attr 'dtype': dtype 0 at offset")));
  c.push_back(Patch32(
      "list_dtype_invalid", GRT_DATA_LOSS,
      [](S b) { return WordsAt(b, Get64(b, Attr(b, kEvery, "list_type") + 8) & 0xffffffffu) + 4; },
      1, Text("attr 'list_type': dtype ")));
  c.push_back(Patch32(
      "shape_rank_invalid", GRT_DATA_LOSS, [](S b) { return ShapeRecord(b, "shape_partial"); }, 9,
      Text("attr 'shape_partial': shape at offset")));
  c.push_back(Patch64(
      "shape_dim_invalid", GRT_DATA_LOSS,
      [](S b) { return WordsAt(b, Get32(b, ShapeRecord(b, "shape_partial") + 4)); },
      [](S, uint64_t) { return static_cast<uint64_t>(-2); }, Text("dimension 0 at offset")));
  c.push_back(Patch64(
      "list_index_out_of_range", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "list_int") + 8; },
      [](S b, uint64_t old) {
        return (old & 0xffffffff00000000ull) | (Section(b, GRT_SECTION_WORDS).length / 8 + 1000);
      },
      [](S b, uint64_t) {
        return Fmt("is out of range (the WORDS section has %llu records)",
                   Section(b, GRT_SECTION_WORDS).length / 8);
      }));
  c.push_back(Patch64(
      "list_index_not_next", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "list_int") + 8; },
      [](S, uint64_t old) { return old + 1; }, Text("is not the next unused record")));
  c.push_back(Patch64(
      "list_count_overrun", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "list_string") + 8; },
      [](S, uint64_t old) { return (old & 0xffffffffu) | (0xffffffffull << 32); },
      Text("4294967295 REFS records needed but only")));
  c.push_back(Patch64(
      "list_tensor_count_overrun", GRT_DATA_LOSS,
      [](S b) { return Attr(b, kEvery, "list_tensor") + 8; },
      [](S, uint64_t old) { return (old & 0xffffffffu) | (0x7fffffffull << 32); },
      Text("2147483647 TENSORS records needed but only")));
  c.push_back(Patch64(
      "tensor_index_out_of_range", GRT_DATA_LOSS, [](S b) { return Attr(b, kEvery, "tensor") + 8; },
      [](S, uint64_t) { return 1ull << 40; },
      Text("index 1099511627776 is out of range (the TENSORS section has")));

  // ---- tensors ---------------------------------------------------------------------
  auto tensor = [](S b) { return TensorRecord(b, kFloat32Const, "value"); };
  c.push_back(Patch64(
      "tensor_misaligned", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 16; },
      [](S, uint64_t old) { return old + 8; },
      [=](S b, uint64_t) {
        return Fmt(
            "node 2 ('consts/float32'): attr 'value': tensor data offset "
            "%llu (at offset %llu) is not 64-byte aligned",
            Get64(b, tensor(b) + 16) + 8, tensor(b) + 16);
      }));
  c.push_back(Patch64(
      "tensor_past_end", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 24; },
      [](S b, uint64_t) { return b.size(); },
      [=](S b, uint64_t) {
        return Fmt(
            "node 2 ('consts/float32'): attr 'value': tensor data at offset "
            "%llu+%llu runs past the end of the file (%llu bytes)",
            Get64(b, tensor(b) + 16), b.size(), b.size());
      }));
  c.push_back(Patch64(
      "tensor_offset_in_metadata", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 16; },
      [](S, uint64_t) { return 0; }, Text("is outside the tensor data region")));
  c.push_back(Patch64(
      "tensor_offset_past_end", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 16; },
      [](S b, uint64_t) { return (b.size() + 128) / 64 * 64; },
      Text("is outside the tensor data region")));
  c.push_back(Patch64(
      "tensor_length_mismatch", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 24; },
      [](S, uint64_t old) { return old - 4; },
      [=](S b, uint64_t) {
        return Fmt(
            "tensor data length 20 (at offset %llu) does not match "
            "float32[2,3] (24 bytes)",
            tensor(b) + 24);
      }));
  c.push_back(Patch64(
      "tensor_overlap", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 16; },
      [](S b, uint64_t) {
        // Where the tensor before it (consts/bfloat16) starts.
        return Get64(b, TensorRecord(b, kFloat32Const - 1, "value") + 16);
      },
      Text("overlaps or comes before the previous tensor's data, which ends at")));
  c.push_back(Patch32(
      "tensor_rank_invalid", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 4; }, 9,
      Text("has rank 9 (must be 0..8)")));
  c.push_back(Patch32(
      "tensor_dtype_invalid", GRT_DATA_LOSS, [=](S b) { return tensor(b); }, 12,
      Text("has dtype 12, not a grt_dtype")));
  c.push_back(Patch32(
      "tensor_reserved", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 12; }, 1,
      Text("reserved field is not zero")));
  c.push_back(Patch64(
      "tensor_negative_dim", GRT_DATA_LOSS,
      [=](S b) { return WordsAt(b, Get32(b, tensor(b) + 8)); },
      [](S, uint64_t) { return static_cast<uint64_t>(-1); }, Text("is -1 (must be >= 0)")));
  c.push_back({"tensor_size_overflow", GRT_DATA_LOSS, [=](std::string* b) {
                 uint64_t dims = WordsAt(*b, Get32(*b, tensor(*b) + 8));
                 Put64(b, dims, 1ull << 40);
                 Put64(b, dims + 8, 1ull << 40);
                 FixChecksum(b);
                 return std::string(
                     "a float32 tensor of shape [1099511627776,1099511627776] would be "
                     "4835703278458516698824704 bytes");
               }});
  // The shape of the issue that asked for checked sizes: its byte size
  // (2^64 - 2^34 - ...) still fits size_t but not int64.
  c.push_back({"tensor_size_past_int64", GRT_DATA_LOSS, [=](std::string* b) {
                 uint64_t dims = WordsAt(*b, Get32(*b, tensor(*b) + 8));
                 Put64(b, dims, 2147483647ull);
                 Put64(b, dims + 8, 2147483647ull);
                 FixChecksum(b);
                 return std::string(
                     "a float32 tensor of shape [2147483647,2147483647] would be "
                     "18446744056529682436 bytes, more than the 9223372036854775807");
               }});
  c.push_back(Patch32(
      "tensor_dims_index_not_next", GRT_DATA_LOSS, [=](S b) { return tensor(b) + 8; }, 0,
      Text("index 0 into WORDS is not the next unused record")));
  // A string attr that is not UTF-8 (the JSON form could not hold it):
  // "caf\xc3\xa9" with its lead byte made 0xff.
  c.push_back({"attr_string_not_utf8", GRT_DATA_LOSS, [](std::string* b) {
                 size_t at = b->find("caf\xc3\xa9");
                 EXPECT_NE(at, std::string::npos);
                 if (at != std::string::npos) (*b)[at + 3] = '\xff';
                 FixChecksum(b);
                 return std::string("is not valid UTF-8 (byte 3 is 0xff)");
               }});
  return c;
}

}  // namespace grt_test
