// The parsed kernel rows of the built-in tables against a golden listing
// taken from the tables as they were written out by hand, one registration
// per line, before the int32-on-host row rule (kernel_registry.h) let one
// line stand for two: the rule must expand to exactly those rows, in the
// same order, with the same dtypes, host-memory arguments and priorities.
// Rows added since may stand between them (see below).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
  std::istringstream want_lines(
      std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  std::string line;
  // Every golden row, in order, with nothing between two rows of one op. A
  // row added later (a new op) may sit anywhere else, so adding a GPU op
  // touches only its backend's folder; no golden row may change, go or
  // move. A rule expanding into a row too many is caught here when it
  // splits an op's rows, and by the registry (rows that can match one node)
  // when it repeats one.
  std::vector<std::string> have;
  for (std::istringstream g(got.str()); std::getline(g, line);) have.push_back(line);
  size_t at = 0;
  std::string prev_op;
  int number = 0;
  while (std::getline(want_lines, line)) {
    number++;
    size_t from = at;
    while (at < have.size() && have[at] != line) at++;
    ASSERT_LT(at, have.size()) << "golden row " << number
                               << " is missing or out of order: " << line;
    std::string op = line.substr(0, line.find(" prio="));
    if (op == prev_op)
      ASSERT_EQ(at, from) << "golden row " << number << " (" << line << ") follows "
                          << have[at - 1];
    prev_op = op;
    at++;
  }
}

}  // namespace
