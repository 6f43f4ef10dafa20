// The nesting bound on protobuf input (interchange/protobuf_depth.h):
// crafted files nesting messages past GRT_PROTOBUF_MAX_DEPTH are refused
// with one line naming the limit instead of overflowing the stack inside
// protobuf-c, the limit itself is accepted, and bytes that merely look like
// deep messages (strings, unknown fields) are not counted.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grt/grt.h"
#include "interchange/interchange.h"
#include "interchange/protobuf_depth.h"
#include "onnx.pb-c.h"

namespace {

std::string Message(grt_status* s) {
  std::string m = s ? grt_status_message(s) : "";
  grt_status_free(s);
  return m;
}

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += (char)((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return out + (char)v;
}

// A length-delimited field (a message, string or bytes) and a varint field.
std::string Field(int num, const std::string& payload) {
  return Varint((uint64_t)num << 3 | 2) + Varint(payload.size()) + payload;
}
std::string IntField(int num, uint64_t v) { return Varint((uint64_t)num << 3) + Varint(v); }

// A ModelProto (ir_version 8, opset 13) around a GraphProto's fields.
std::string Model(const std::string& graph_fields) {
  return IntField(1, 8) + Field(8, IntField(2, 13)) + Field(7, Field(2, "g") + graph_fields);
}

// A graph input whose TypeProto nests sequence_type `k` times around a
// TypeProto with (leaf_tensor) or without a tensor_type: the deepest
// message is at level 4 + 2k (+1 with the tensor type).
std::string DeepSequenceModel(int k, bool leaf_tensor) {
  std::string t = leaf_tensor ? Field(1, IntField(1, 1)) : "";
  for (int i = 0; i < k; i++) t = Field(4, Field(1, t));
  return Model(Field(11, Field(1, "x") + Field(2, t)));
}

// If nodes nested `k` deep through their then_branch graphs. Each level
// wraps the one inside in the same prefix and suffix, so the bytes are
// built from those (sized from the inside out) rather than by copying the
// growing message k times.
std::string DeepIfModel(int k) {
  std::string leaf = Field(2, "leaf");
  std::vector<std::string> pre(k);
  const std::string suf = IntField(20, 5);  // the attribute's type: GRAPH
  size_t g = leaf.size();
  for (int i = 0; i < k; i++) {
    std::string attr_head = Field(1, "then_branch") + Varint(6 << 3 | 2) + Varint(g);
    size_t attr = attr_head.size() + g + suf.size();
    std::string node_head = Field(1, "c") + Field(2, "y") + Field(4, "If") + Varint(5 << 3 | 2) +
                            Varint(attr) + attr_head;
    size_t node = node_head.size() + g + suf.size();
    pre[i] = Varint(1 << 3 | 2) + Varint(node) + node_head;
    g = pre[i].size() + g + suf.size();
  }
  std::string out;
  out.reserve(g);
  for (int i = k - 1; i >= 0; i--) out += pre[i];
  out += leaf;
  for (int i = 0; i < k; i++) out += suf;
  return Model(out);
}

grt_status* CheckOnnx(const std::string& b) {
  return grt_protobuf_check_depth(&onnx__model_proto__descriptor, b.data(), b.size(), "ONNX model");
}

TEST(ProtobufDepth, TheLimitIsAcceptedAndOneMoreLevelRefused) {
  int k = (GRT_PROTOBUF_MAX_DEPTH - 4) / 2;
  ASSERT_EQ(4 + 2 * k, GRT_PROTOBUF_MAX_DEPTH);  // the deepest level is exactly the limit
  EXPECT_EQ(Message(CheckOnnx(DeepSequenceModel(k, false))), "");
  EXPECT_EQ(Message(CheckOnnx(DeepSequenceModel(k, true))),
            "the ONNX model nests messages more than 100 levels deep (grt's limit for protobuf "
            "input: nested subgraphs, types or attribute values)");
}

TEST(ProtobufDepth, DeepSequenceTypeIsRefusedNotACrash) {
  std::string b = DeepSequenceModel(5000, true);
  grt_graph* g = nullptr;
  std::string m = Message(grt_onnx_parse(b.data(), b.size(), &g));
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(m.find("more than 100 levels deep"), std::string::npos) << m;
}

TEST(ProtobufDepth, DeepIfNestingIsRefusedThroughGraphLoad) {
  const char* tmp = getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/deep_if.onnx";
  {
    std::ofstream f(path, std::ios::binary);
    f << DeepIfModel(10000);
  }
  grt_graph* g = nullptr;
  std::string m = Message(grt_graph_load(path.c_str(), &g));
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("more than 100 levels deep"), std::string::npos) << m;
  remove(path.c_str());
}

TEST(ProtobufDepth, ShallowIfNestingIsNotRefusedForDepth) {
  // 10 nested If nodes are 33 levels: whatever the importer says of these
  // bodies, it is not the depth limit.
  std::string b = DeepIfModel(10);
  EXPECT_EQ(Message(CheckOnnx(b)), "");
  grt_graph* g = nullptr;
  std::string m = Message(grt_onnx_parse(b.data(), b.size(), &g));
  grt_graph_free(g);
  EXPECT_EQ(m.find("levels deep"), std::string::npos) << m;
  EXPECT_EQ(m.find("protobuf parse failed"), std::string::npos) << m;
}

std::string ReadFile(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(ProtobufDepth, StringsAndUnknownFieldsThatLookDeepAreNotCounted) {
  std::string model = ReadFile("tests/interchange/onnx/gemm_relu.onnx");
  ASSERT_FALSE(model.empty());
  std::string deep = DeepSequenceModel(5000, true);
  // Appended fields merge into the model: a doc_string (string, field 6) and
  // an unknown field 1000 whose bytes happen to be a 10,000-level message.
  model += Field(6, deep) + Field(1000, deep);
  grt_graph* g = nullptr;
  EXPECT_EQ(Message(grt_onnx_parse(model.data(), model.size(), &g)), "");
  grt_graph_free(g);

  // The same in a GraphDef: an unknown field and a node's device string.
  std::string node = Field(1, "p") + Field(2, "Placeholder") + Field(4, "") +
                     Field(5, Field(1, "dtype") + Field(2, IntField(6, 1)));
  std::string gd = Field(1, node) + Field(1000, deep);
  EXPECT_EQ(Message(grt_graphdef_parse(gd.data(), gd.size(), &g)), "");
  grt_graph_free(g);
}

// A model at the limit unpacks (and imports) on a thread with a small
// stack: what the bound buys a host that loads models off its main thread.
struct OnSmallStack {
  std::string bytes;
  std::string message;
};

void* ParseOnThread(void* arg) {
  auto* job = static_cast<OnSmallStack*>(arg);
  grt_graph* g = nullptr;
  job->message = Message(grt_onnx_parse(job->bytes.data(), job->bytes.size(), &g));
  grt_graph_free(g);
  return nullptr;
}

TEST(ProtobufDepth, AModelAtTheLimitLoadsOnA256KiBStack) {
  OnSmallStack job;
  job.bytes = DeepSequenceModel((GRT_PROTOBUF_MAX_DEPTH - 4) / 2, false);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 << 10), 0);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, &attr, ParseOnThread, &job), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  // Unpacked: whatever the importer says of a sequence-typed input, it is
  // not the parser's failure or the depth limit (and it did not crash).
  EXPECT_EQ(job.message.find("protobuf parse failed"), std::string::npos) << job.message;
  EXPECT_EQ(job.message.find("levels deep"), std::string::npos) << job.message;
}

}  // namespace
