// `grt place` and `grt devices` as a user runs them (docs/cli.md):
// exit 0 ok, 1 input or placement failure, 2 usage error; messages on stderr.
#include <gtest/gtest.h>
#include <jansson.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string Dir() {
  const char* t = getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

std::string GrtPath() {
  const char* src = getenv("TEST_SRCDIR");
  return std::string(src ? src : ".") + "/grt/tools/grt";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

struct Result {
  int rc;
  std::string out, err;
};

// Runs `grt ARGS` (ARGS is shell text the test controls).
Result Grt(const std::string& args) {
  std::string out = Dir() + "/stdout.txt", err = Dir() + "/stderr.txt";
  std::string cmd = GrtPath() + " " + args + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  Result r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

// The seed's three-GPU graph, trimmed: each GPU multiplies its own
// variables, the CPU sums.
std::string ThreeGpus() {
  std::string nodes;
  for (int i = 0; i < 3; i++) {
    std::string k = std::to_string(i), d = "/gpu:" + k;
    for (const char* v : {"a_", "b_"}) {
      std::string name = v + k;
      nodes += "{\"name\": \"" + name + "\", \"op\": \"VariableV2\", \"device\": \"" + d +
               "\", \"attrs\": {\"dtype\": \"float32\", \"shape\": [2, 2]}},\n";
      nodes += "{\"name\": \"" + name + "/read\", \"op\": \"Identity\", \"inputs\": [\"" + name +
               "\"], \"device\": \"" + d + "\", \"colocate_with\": [\"" + name +
               "\"], \"attrs\": {\"T\": \"float32\"}},\n";
    }
    nodes += "{\"name\": \"MatMul_" + k + "\", \"op\": \"MatMul\", \"inputs\": [\"a_" + k +
             "/read\", \"b_" + k + "/read\"], \"device\": \"" + d +
             "\", \"attrs\": {\"T\": \"float32\"}},\n";
  }
  nodes +=
      "{\"name\": \"sum\", \"op\": \"AddN\", \"inputs\": [\"MatMul_0\", \"MatMul_1\", "
      "\"MatMul_2\"], \"device\": \"/cpu:0\", \"attrs\": {\"N\": 3, \"T\": \"float32\"}}\n";
  return "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": [\n" + nodes + "]}\n";
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    graph_ = Dir() + "/three_gpus.json";
    Write(graph_, ThreeGpus());
  }
  std::string graph_;
};

TEST_F(CliTest, LogMatchesTheContractLineForLine) {
  Result r = Grt("place " + graph_ + " --devices cpu:1,gpu:3 --log");
  ASSERT_EQ(r.rc, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "Device mapping:");
  for (int i = 0; i < 4; i++) std::getline(lines, line);  // CPU:0, GPU:0..2
  EXPECT_EQ(line.rfind("/job:localhost/replica:0/task:0/device:GPU:2 -> device: 2", 0), 0u);
  const char* want[] = {"a_0: (VariableV2): /job:localhost/replica:0/task:0/device:GPU:0",
                        "a_0/read: (Identity): /job:localhost/replica:0/task:0/device:GPU:0",
                        "b_0: (VariableV2): /job:localhost/replica:0/task:0/device:GPU:0"};
  for (const char* w : want) {
    ASSERT_TRUE(std::getline(lines, line));
    EXPECT_EQ(line, w);
  }
  EXPECT_NE(r.out.find("\nsum: (AddN): /job:localhost/replica:0/task:0/device:CPU:0\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, MissingGpusFailWithTensorFlowsMessage) {
  Result r = Grt("place " + graph_ + " --devices cpu:1 --log");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("Cannot assign a device for operation a_0: Operation was explicitly "
                       "assigned to /device:GPU:0 but available devices are [ "
                       "/job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device "
                       "specification refers to a valid device."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");  // no partial log
  Result soft = Grt("place " + graph_ + " --devices cpu:1 --soft-placement --log");
  ASSERT_EQ(soft.rc, 0) << soft.err;
  EXPECT_NE(soft.out.find("MatMul_2: (MatMul): /job:localhost/replica:0/task:0/device:CPU:0"),
            std::string::npos);
}

TEST_F(CliTest, SummaryWithoutLog) {
  Result r = Grt("place " + graph_ + " --devices=cpu:1,gpu:3");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, "placed 16 nodes: CPU:0 1; GPU:0 5; GPU:1 5; GPU:2 5; 3 cross-device copies\n");
}

TEST_F(CliTest, PlanJsonAndPictures) {
  std::string json = Dir() + "/plan.json", dot = Dir() + "/plan.dot", svg = Dir() + "/plan.svg";
  Result r = Grt("place " + graph_ + " --devices cpu:1,gpu:2 --soft-placement --plan-json " + json +
                 " --dot " + dot + " --ps-devices /gpu:0,/gpu:1 --ps-strategy round_robin");
  ASSERT_EQ(r.rc, 0) << r.err;
  json_t* root = json_load_file(json.c_str(), 0, nullptr);
  ASSERT_NE(root, nullptr) << Slurp(json);
  EXPECT_EQ(json_array_size(json_object_get(root, "nodes")), 16u);
  json_t* n = json_array_get(json_object_get(root, "nodes"), 10);  // a_2: /gpu:2 is missing
  EXPECT_STREQ(json_string_value(json_object_get(n, "name")), "a_2");
  EXPECT_STREQ(json_string_value(json_object_get(json_object_get(n, "reason"), "kind")),
               "soft_fallback");
  EXPECT_STREQ(json_string_value(json_object_get(json_object_get(root, "ps"), "strategy")),
               "round_robin");
  json_decref(root);
  EXPECT_EQ(Slurp(dot).rfind("digraph plan {", 0), 0u);
  Result pic = Grt("place " + graph_ + " --devices cpu:1,gpu:3 --dot " + svg);
  ASSERT_EQ(pic.rc, 0) << pic.err;
  EXPECT_NE(Slurp(svg).find("<svg"), std::string::npos);
  Result bad = Grt("place " + graph_ + " --devices cpu:1,gpu:3 --plan-json " + Dir() +
                   "/no/such/dir/plan.json");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_NE(bad.err.find("grt place: "), std::string::npos);
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  const std::string g = graph_;
  const char* cases[][2] = {
      {"place", "no input FILE"},
      {"place GRAPH", "--devices SPEC is required"},
      {"place GRAPH --devices", "--devices needs a value"},
      {"place GRAPH --devices gpu:x", "must be a number"},
      {"place GRAPH --devices cpu:1 --fast", "unknown option '--fast'"},
      {"place GRAPH GRAPH --devices cpu:1", "more than one input file"},
      {"place GRAPH --devices cpu:1 --ps-strategy greedy", "--ps-strategy needs --ps-devices"},
      {"place GRAPH --devices cpu:1 --ps-devices /gpu:0 --ps-strategy best",
       "unknown ps strategy 'best'"},
      {"place GRAPH --devices cpu:1 --ps-devices /gpu:zero", "malformed device specification"},
      {"place GRAPH --devices cpu:1 --devices cpu:2", "--devices given twice"},
      {"place GRAPH --devices= ", "--devices needs a non-empty value"},
      {"devices --devices tpu:1", "unknown device type 'tpu'"},
      {"devices extra", "unexpected argument 'extra'"},
  };
  for (const auto& c : cases) {
    std::string args = c[0];
    for (size_t at; (at = args.find("GRAPH")) != std::string::npos;) args.replace(at, 5, g);
    Result r = Grt(args);
    EXPECT_EQ(r.rc, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(c[1]), std::string::npos) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("usage: grt "), std::string::npos) << args << "\n" << r.err;
  }
}

TEST_F(CliTest, BadInputsExitOne) {
  Result missing = Grt("place " + Dir() + "/nope.json --devices cpu:1");
  EXPECT_EQ(missing.rc, 1);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
  std::string broken = Dir() + "/broken.json";
  Write(broken, "{\"format\": \"grt.graph\", \"version\": 1, \"nodes\": [{\"name\": \"x\"");
  Result r = Grt("place " + broken + " --devices cpu:1");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("grt place: "), std::string::npos);
}

TEST_F(CliTest, Devices) {
  Result r = Grt("devices");
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out,
            "Device mapping:\n/job:localhost/replica:0/task:0/device:CPU:0 -> device: 0, name: "
            "logical CPU device\n");
  Result d = Grt("devices --devices cpu:2,gpu:1");
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_NE(d.out.find("device:CPU:1 -> device: 1"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("device:GPU:0 -> device: 0, name: logical GPU device (declared; not on "
                       "this machine)"),
            std::string::npos)
      << d.out;
}

}  // namespace
