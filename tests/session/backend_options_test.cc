// A backend compiled into the host declares its own session options: the
// session checks them with the backend's check, counts the type's devices
// with its devices(), hands the values to device_new in declaration order,
// and lists them; declarations the session could not use are refused when
// the backend registers.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "grt/backend.h"
#include "grt/grt.h"

namespace {

int32_t OneCard(char* why, size_t size) { return 1; }
const grt_op_kernel* NoKernel(const char* op) { return nullptr; }

// What device_new was told, for the test to look at.
std::vector<std::string> g_seen;

grt_status* RecordingDeviceNew(const grt_device_config* cfg, grt_device** out) {
  *out = nullptr;
  g_seen.clear();
  for (int32_t i = 0; i < cfg->n_options; i++) g_seen.push_back(cfg->options[i]);
  return grt_status_new(GRT_UNIMPLEMENTED, "OPTS makes no devices (%s)", cfg->name);
}

grt_status* CheckLevel(const char* v) {
  if (strlen(v) == 1 && v[0] >= '1' && v[0] <= '3') return nullptr;
  return grt_status_new(GRT_INVALID_ARGUMENT, "'%s' is not 1, 2 or 3", v);
}

// Each card is `level` devices.
int32_t Devices(int32_t probed, const char* const* values) { return probed * (values[0][0] - '0'); }

const grt_backend_option kOptionList[] = {
    {"level", "1, 2 or 3", "1", "devices per card", CheckLevel},
    {"name", "any text", "", "a label, unchecked", nullptr},
};
const grt_backend_options kOptions = {kOptionList, 2, Devices};

const grt_kernel_spec kRows[] = {{"NoOp", "OPTS", "", "", 0}};
const grt_backend kOpts = {GRT_BACKEND_API_VERSION, "OPTS",   100,     kRows,    1, OneCard,
                           RecordingDeviceNew,      NoKernel, nullptr, &kOptions};

std::string Message(grt_status* st) {
  std::string m = st ? grt_status_message(st) : "OK";
  grt_status_free(st);
  return m;
}

TEST(BackendOptions, RegisteredBackendsKeysAreCheckedCountedAndHandedOver) {
  ASSERT_EQ(Message(grt_backend_register(&kOpts)), "OK");
  grt_session_options* o = nullptr;
  ASSERT_EQ(grt_session_options_new(&o), nullptr);
  EXPECT_EQ(Message(grt_session_options_set(o, "opts.level", "4")),
            "option opts.level: '4' is not 1, 2 or 3");
  EXPECT_EQ(Message(grt_session_options_set(o, "opts.lvl", "2")),
            "unknown session option 'opts.lvl' (device type OPTS has: opts.level, opts.name)");
  EXPECT_EQ(Message(grt_session_options_set(o, "OPTS.level", "3")), "OK");  // any case of the type
  // A key with nothing before its dot is an unknown key.
  EXPECT_EQ(Message(grt_session_options_set(o, ".level", "3"))
                .rfind("unknown session option '.level' (known: allow_soft_placement, ", 0),
            0u);
  EXPECT_EQ(Message(grt_session_options_set(o, "opts.name", "anything at all")), "OK");
  char doc[8192];
  ASSERT_LT(grt_session_options_describe(doc, sizeof doc), sizeof doc);
  EXPECT_NE(std::string(doc).find("\nopts.level\t1, 2 or 3\t1\tdevices per card\n"),
            std::string::npos)
      << doc;

  // A node on OPTS:2 exists only with level 3; the session asks the
  // backend for that device with the values set.
  const char* kGraph = R"({"format":"grt.graph","version":1,"nodes":[
    {"name":"a","op":"NoOp","device":"/device:OPTS:2"}]})";
  grt_graph* g = nullptr;
  ASSERT_EQ(grt_graph_from_json(kGraph, strlen(kGraph), &g), nullptr);
  grt_session* s = nullptr;
  std::string m = Message(grt_session_new(g, o, &s));
  EXPECT_NE(m.find("OPTS makes no devices"), std::string::npos) << m;
  EXPECT_EQ(g_seen, std::vector<std::string>({"3", "anything at all"}));
  // With the defaults there is one OPTS device: no OPTS:2 to place on.
  grt_session_options* defaults = nullptr;
  ASSERT_EQ(grt_session_options_new(&defaults), nullptr);
  g_seen.clear();
  m = Message(grt_session_new(g, defaults, &s));
  EXPECT_EQ(m.find("OPTS makes no devices"), std::string::npos) << m;
  EXPECT_NE(m.find("OPTS:2"), std::string::npos) << m;
  grt_session_options_free(defaults);
  grt_session_options_free(o);
  grt_graph_free(g);
}

TEST(BackendOptions, UnusableDeclarationsAreRefused) {
  const grt_backend_option dotted[] = {{"a.b", "x", "", "x", nullptr}};
  const grt_backend_options bad = {dotted, 1, nullptr};
  const grt_backend b = {GRT_BACKEND_API_VERSION, "BADOPTS", 100,     nullptr, 0, OneCard,
                         RecordingDeviceNew,      NoKernel,  nullptr, &bad};
  EXPECT_EQ(Message(grt_backend_register(&b)),
            "backend 'BADOPTS': its option 0 has no key, or one with '.' or '=' or over 64 bytes");
  const grt_backend_options none = {nullptr, 3, nullptr};
  const grt_backend c = {GRT_BACKEND_API_VERSION, "BADOPTS", 100,     nullptr, 0, OneCard,
                         RecordingDeviceNew,      NoKernel,  nullptr, &none};
  EXPECT_EQ(Message(grt_backend_register(&c)),
            "backend 'BADOPTS': it declares 3 options but no table of them");
  const grt_backend_options many = {dotted, 33, nullptr};
  const grt_backend d = {GRT_BACKEND_API_VERSION, "BADOPTS", 100,     nullptr, 0, OneCard,
                         RecordingDeviceNew,      NoKernel,  nullptr, &many};
  EXPECT_EQ(Message(grt_backend_register(&d)),
            "backend 'BADOPTS': it declares 33 options (at most 32)");
}

}  // namespace
