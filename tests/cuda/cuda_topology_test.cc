// Logical GPUs carved from physical cards (gpu.virtual_devices) and the
// description each GPU gives, without a GPU: the mapping is arithmetic on
// the session's options.
#include <gtest/gtest.h>

#include <string>

extern "C" {
#include "backends/cuda/cuda_topology.h"
}

namespace {

// The GPU options as the session hands them to the backend: strings in
// declaration order, read by grt_gpu_options_parse.
grt_gpu_options Options(const char* virtual_devices, const char* fraction = "1") {
  const char* values[GRT_GPU_NUM_OPTS] = {};
  values[GRT_GPU_OPT_ALLOW_GROWTH] = "false";
  values[GRT_GPU_OPT_MEMORY_FRACTION] = fraction;
  values[GRT_GPU_OPT_VIRTUAL_DEVICES] = virtual_devices;
  grt_gpu_options o;
  grt_status* s = grt_gpu_options_parse(values, GRT_GPU_NUM_OPTS, &o);
  EXPECT_EQ(s, nullptr) << grt_status_message(s);
  grt_status_free(s);
  return o;
}

TEST(GpuOptions, DefaultsAndValuesFromStrings) {
  grt_gpu_options o;
  ASSERT_EQ(grt_gpu_options_parse(nullptr, 0, &o), nullptr);  // every default
  EXPECT_FALSE(o.allow_growth);
  EXPECT_EQ(o.memory_fraction, 1.0);
  EXPECT_EQ(o.virtual_count, 0);
  const char* values[] = {"TRUE", "0.25", "512,2048"};
  ASSERT_EQ(grt_gpu_options_parse(values, 3, &o), nullptr);
  EXPECT_TRUE(o.allow_growth);
  EXPECT_EQ(o.memory_fraction, 0.25);
  ASSERT_EQ(o.virtual_count, 2);
  EXPECT_EQ(o.virtual_mib[0], 512);
  EXPECT_EQ(o.virtual_mib[1], 2048);
}

TEST(GpuOptions, DeclarationsCheckValuesAndNameWhatIsWrong) {
  const grt_backend_options& d = grt_options_gpu;
  ASSERT_EQ(d.n, GRT_GPU_NUM_OPTS);
  EXPECT_STREQ(d.options[GRT_GPU_OPT_VIRTUAL_DEVICES].key, "virtual_devices");
  struct Case {
    int opt;
    const char* value;
    const char* message;  // nullptr: accepted
  } cases[] = {
      {GRT_GPU_OPT_ALLOW_GROWTH, "yes", "'yes' is not a bool (true/false)"},
      {GRT_GPU_OPT_ALLOW_GROWTH, "1", nullptr},
      {GRT_GPU_OPT_MEMORY_FRACTION, "1.5", "'1.5' is not a fraction in (0, 1]"},
      {GRT_GPU_OPT_MEMORY_FRACTION, "nan", "'nan' is not a fraction in (0, 1]"},
      {GRT_GPU_OPT_MEMORY_FRACTION, "0.5", nullptr},
      {GRT_GPU_OPT_VIRTUAL_DEVICES, "1024,x",
       "'1024,x' must be a comma-separated list of positive MiB sizes"},
      {GRT_GPU_OPT_VIRTUAL_DEVICES, "1024,", "'1024,' ends with a comma"},
      {GRT_GPU_OPT_VIRTUAL_DEVICES, "0",
       "'0' must be a comma-separated list of positive MiB sizes"},
      {GRT_GPU_OPT_VIRTUAL_DEVICES, "", nullptr},
  };
  for (const Case& c : cases) {
    grt_status* s = d.options[c.opt].check(c.value);
    if (!c.message) {
      EXPECT_EQ(s, nullptr) << c.value << ": " << grt_status_message(s);
    } else {
      ASSERT_NE(s, nullptr) << c.value;
      EXPECT_STREQ(grt_status_message(s), c.message);
    }
    grt_status_free(s);
  }
  // 65 logical GPUs on a card is over the limit.
  std::string many = "1";
  for (int i = 0; i < 64; i++) many += ",1";
  grt_status* s = d.options[GRT_GPU_OPT_VIRTUAL_DEVICES].check(many.c_str());
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s), "more than 64 virtual devices");
  grt_status_free(s);
  // A bad value handed to the backend anyway is an error naming the key.
  const char* bad[] = {"false", "2", ""};
  grt_gpu_options o;
  s = grt_gpu_options_parse(bad, 3, &o);
  ASSERT_NE(s, nullptr);
  EXPECT_STREQ(grt_status_message(s),
               "option gpu.memory_fraction: '2' is not a fraction in (0, 1]");
  grt_status_free(s);
  // The device count a session sees: each card split as the option says.
  const char* four[] = {"false", "1", "1024,1024,1024,1024"};
  EXPECT_EQ(d.devices(2, four), 8);
  const char* none[] = {"false", "1", ""};
  EXPECT_EQ(d.devices(2, none), 2);
}

TEST(CudaTopology, WithoutVirtualDevicesEachGpuIsACard) {
  for (int32_t id = 0; id < 3; id++) {
    grt_gpu_options c = Options("", "0.5");
    grt_cuda_placement p = grt_cuda_virtual_map(id, &c);
    EXPECT_EQ(p.physical, id);
    EXPECT_EQ(p.virtual_index, 0);
    EXPECT_EQ(p.virtual_count, 1);
    // memory_fraction of the card, rounded down to MiB.
    size_t total = (size_t)80 * 1024 * 1024 * 1024 + 12345;
    size_t want = (size_t)(total * 0.5) / (1 << 20) * (1 << 20);
    EXPECT_EQ(grt_cuda_memory_limit(&p, &c, total), want);
  }
  grt_gpu_options c = Options("");
  EXPECT_EQ(grt_cuda_logical_count(2, &c), 2);
}

TEST(CudaTopology, FourOneGibLogicalGpusPerCard) {
  const int64_t mib[4] = {1024, 1024, 1024, 2048};
  grt_gpu_options any = Options("1024,1024,1024,2048");
  EXPECT_EQ(grt_cuda_logical_count(2, &any), 8);
  for (int32_t id = 0; id < 8; id++) {
    grt_gpu_options c = Options("1024,1024,1024,2048", "0.1");  // the fraction is ignored
    grt_cuda_placement p = grt_cuda_virtual_map(id, &c);
    EXPECT_EQ(p.physical, id / 4) << id;
    EXPECT_EQ(p.virtual_index, id % 4) << id;
    EXPECT_EQ(p.virtual_count, 4);
    EXPECT_EQ(grt_cuda_memory_limit(&p, &c, (size_t)80 << 30), (size_t)mib[id % 4] << 20) << id;
  }
}

TEST(CudaTopology, LimitsCapToWhatTheCardHasFree) {
  const size_t MiB = 1 << 20, GiB = (size_t)1 << 30;
  // 80 GiB free: headroom 2% (1.6 GiB); a 1 GiB logical GPU is untouched.
  EXPECT_EQ(grt_cuda_cap_to_free(GiB, 80 * GiB), GiB);
  size_t usable = 80 * GiB - 80 * GiB / 50;
  EXPECT_EQ(grt_cuda_cap_to_free(100 * GiB, 80 * GiB), usable / MiB * MiB);
  // Little free: at least 256 MiB stays.
  EXPECT_EQ(grt_cuda_cap_to_free(GiB, 1000 * MiB), 744 * MiB);
  EXPECT_EQ(grt_cuda_cap_to_free(GiB, 100 * MiB), 0u);
}

TEST(CudaTopology, DescriptionsAsTensorFlowLogsThem) {
  grt_cuda_card card = {"NVIDIA H100 80GB HBM3", "0000:1b:00.0", 9, 0, (size_t)80 << 30};
  grt_cuda_placement whole = {0, 0, 1, 0};
  char buf[320];
  grt_cuda_describe(&card, &whole, (size_t)80 << 30, buf, sizeof buf);
  EXPECT_EQ(std::string(buf),
            "device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:1b:00.0, "
            "compute capability: 9.0, memory: 80.0 GiB");
  grt_cuda_placement logical = {1, 2, 4, (size_t)1 << 30};
  size_t n = grt_cuda_describe(&card, &logical, (size_t)1 << 30, buf, sizeof buf);
  EXPECT_EQ(std::string(buf),
            "device: 1, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:1b:00.0, "
            "compute capability: 9.0, memory: 1.0 GiB, shares physical GPU 1 (logical 2 of 4)");
  EXPECT_EQ(n, std::string(buf).size());
  // Truncated into a small buffer, still terminated and the full length told.
  char small[16];
  EXPECT_EQ(grt_cuda_describe(&card, &logical, (size_t)1 << 30, small, sizeof small), n);
  EXPECT_EQ(std::string(small), std::string(buf).substr(0, 15));
}

}  // namespace
