// Allocation failures during a process's first load, session and run, when
// the process-wide tables (op registry, kernel registry, CPU kernel table,
// backend registry) are still to be built. Each n runs in a forked child, so
// every attempt starts cold: allocation n+1 fails (persistently, then
// transiently), and the attempt must succeed or return RESOURCE_EXHAUSTED;
// then, with injection off, the same work must succeed.
//
// The op registry, the kernel registry and the CPU kernel table publish
// nothing when building them runs out of memory, and build again on the
// next use; alloc_failure_test builds them first and tests everything after.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>

#include "base/mem.h"
#include "grt/grt.h"

namespace {

// A cold load of the seeds' example, a session with soft placement and
// its init run; "OK" or "CODE: message".
std::string ColdWork() {
  grt_graph* g = nullptr;
  grt_session* s = nullptr;
  grt_session_options* o = nullptr;
  grt_status* st = grt_graph_load("examples/three_gpus.json", &g);
  if (!st) st = grt_session_options_new(&o);
  if (!st) st = grt_session_options_set(o, "allow_soft_placement", "true");
  if (!st) st = grt_session_new(g, o, &s);
  const char* init[] = {"init"};
  if (!st) st = grt_session_run(s, nullptr, 0, nullptr, 0, init, 1, nullptr, nullptr);
  std::string r =
      st ? std::string(grt_code_name(grt_status_code(st))) + ": " + grt_status_message(st) : "OK";
  grt_status_free(st);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
  return r;
}

// Runs f in a forked child and returns what it wrote to the pipe ("" and a
// note if it crashed).
template <class F>
std::string InChild(F f) {
  int fd[2];
  if (pipe(fd) != 0) return "pipe failed";
  fflush(stdout);
  fflush(stderr);
  pid_t p = fork();
  if (p == 0) {
    close(fd[0]);
    std::string out = f();
    ssize_t w = write(fd[1], out.data(), out.size());
    _exit(w == static_cast<ssize_t>(out.size()) ? 0 : 1);
  }
  close(fd[1]);
  std::string out;
  char buf[4096];
  ssize_t k;
  while ((k = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(k));
  close(fd[0]);
  int status = 0;
  waitpid(p, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    out += " [child died: status " + std::to_string(status) + "]";
  return out;
}

TEST(ColdStartAllocFailure, EveryAllocationOfTheFirstRun) {
  std::string counted = InChild([] {
    grt_mem_fail_after(-1);
    std::string r = ColdWork();
    return r + " " + std::to_string(grt_mem_fail_after(-1));
  });
  ASSERT_EQ(counted.compare(0, 3, "OK "), 0) << counted;
  int64_t count = std::stoll(counted.substr(3));
  printf("a cold load + session + init run takes %lld allocations\n",
         static_cast<long long>(count));
  for (bool once : {false, true}) {
    // One report per distinct outcome, with how many n gave it.
    std::map<std::string, std::pair<int64_t, int>> bad;  // outcome -> first n, count
    for (int64_t n = 0; n <= count; n++) {
      std::string r = InChild([&] {
        if (once)
          grt_mem_fail_once_after(n);
        else
          grt_mem_fail_after(n);
        std::string armed = ColdWork();
        grt_mem_fail_after(-1);
        std::string after = ColdWork();
        bool ok =
            (armed == "OK" || armed.compare(0, 19, "RESOURCE_EXHAUSTED:") == 0) && after == "OK";
        return ok ? std::string("good") : armed + " | then: " + after;
      });
      if (r != "good") {
        auto it = bad.emplace(r, std::make_pair(n, 0)).first;
        it->second.second++;
      }
    }
    for (const auto& kv : bad)
      ADD_FAILURE() << (once ? "transient" : "persistent") << " n=" << kv.second.first << " (and "
                    << kv.second.second - 1 << " more n like it): " << kv.first;
  }
}

}  // namespace
