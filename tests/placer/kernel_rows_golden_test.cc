// The parsed kernel rows of the built-in tables against a golden listing
// taken from the tables as they were written out by hand, one registration
// per line, before the int32-on-host row rule (kernel_registry.h) let one
// line stand for two: the rule must expand to exactly those rows, in the
// same order, with the same dtypes, host-memory arguments and priorities.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

extern "C" {
#include "base/dtype.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def.h"
}

namespace {

// One line per parsed row: device, op, priority, each constraint's dtypes,
// and the arguments in host memory, by name.
std::string Describe(const grt_kernel_def* k) {
  std::ostringstream os;
  os << grt_device_type_name(k->device) << " " << k->op << " prio=" << k->priority;
  for (int32_t c = 0; c < k->n_constraints; c++) {
    os << " " << k->constraints[c].attr << "={";
    bool first = true;
    for (int t = 1; t < GRT_NUM_DTYPES; t++) {
      if (!(k->constraints[c].allowed & grt_dtype_bit((grt_dtype)t))) continue;
      os << (first ? "" : ",") << grt_dtype_name((grt_dtype)t);
      first = false;
    }
    os << "}";
  }
  const grt_op_def* def = grt_op_lookup(k->op);
  os << " host=[";
  bool first = true;
  for (int32_t a = 0; def && a < def->n_inputs; a++)
    if (k->host_inputs & (1u << a)) {
      os << (first ? "" : ",") << def->inputs[a].name;
      first = false;
    }
  os << "|";
  first = true;
  for (int32_t a = 0; def && a < def->n_outputs; a++)
    if (k->host_outputs & (1u << a)) {
      os << (first ? "" : ",") << def->outputs[a].name;
      first = false;
    }
  os << "]";
  return os.str();
}

TEST(KernelRowsGoldenTest, BuiltInRowsExpandToTheHandWrittenRegistrations) {
  const grt_status* s = grt_kernel_registry_status();
  ASSERT_EQ(s, nullptr) << grt_status_message(s);
  std::ostringstream got;
  for (int32_t i = 0; i < grt_kernel_count(); i++) got << Describe(grt_kernel_at(i)) << "\n";

  // What this build has, for a look when it differs.
  if (const char* dir = getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
    std::ofstream out(std::string(dir) + "/kernel_rows.txt");
    out << got.str();
  }
  std::ifstream in("tests/placer/kernel_rows.golden");
  ASSERT_TRUE(in.good()) << "tests/placer/kernel_rows.golden is missing";
  std::istringstream want_lines(std::string((std::istreambuf_iterator<char>(in)),
                                            std::istreambuf_iterator<char>()));
  std::istringstream got_lines(got.str());
  std::string want_line, got_line;
  int line = 0;
  while (true) {
    bool w = static_cast<bool>(std::getline(want_lines, want_line));
    bool g = static_cast<bool>(std::getline(got_lines, got_line));
    line++;
    if (!w && !g) break;
    ASSERT_EQ(w, g) << "row " << line << ": golden " << (w ? want_line : "(ended)")
                    << ", tables " << (g ? got_line : "(ended)");
    ASSERT_EQ(want_line, got_line) << "row " << line;
  }
}

}  // namespace
