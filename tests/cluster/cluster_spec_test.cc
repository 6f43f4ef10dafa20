// The cluster spec's parser and the session option `cluster`, with no MPI:
// a spec maps onto ranks in order, bad specs name what is wrong, and a
// session asking for a cluster without the transport plugin fails with one
// line naming the plugin. (The multi-process runs: cluster_test.sh.)
#include <limits.h>
#include <stdlib.h>

#include <string>

#include "grt/grt.h"
#include "gtest/gtest.h"
#include "runtime/cluster/cluster.h"

namespace {

std::string Message(grt_status* st) {
  std::string m = st ? grt_status_message(st) : "OK";
  grt_status_free(st);
  return m;
}

TEST(ClusterSpec, MapsJobsOntoRanksInOrder) {
  grt_cluster_spec s;
  ASSERT_EQ(Message(grt_cluster_spec_parse("ps:1,worker:2", &s)), "OK");
  EXPECT_EQ(s.n_jobs, 2);
  EXPECT_EQ(s.n_tasks, 3);
  const char* job;
  int32_t task;
  grt_cluster_spec_task(&s, 0, &job, &task);
  EXPECT_STREQ(job, "ps");
  EXPECT_EQ(task, 0);
  grt_cluster_spec_task(&s, 1, &job, &task);
  EXPECT_STREQ(job, "worker");
  EXPECT_EQ(task, 0);
  grt_cluster_spec_task(&s, 2, &job, &task);
  EXPECT_STREQ(job, "worker");
  EXPECT_EQ(task, 1);
  grt_cluster_spec_task(&s, 3, &job, &task);
  EXPECT_EQ(task, -1);
}

TEST(ClusterSpec, BadSpecsNameWhatIsWrong) {
  struct {
    const char* spec;
    const char* says;
  } cases[] = {
      {"", "empty cluster spec"},
      {"ps", "cannot parse 'ps' (expected JOB:N)"},
      {"ps:0", "task count '0' of job 'ps' must be from 1 to 1024"},
      {"ps:x", "task count 'x'"},
      {"ps:1,ps:2", "job 'ps' is given twice"},
      {"ps:1,", "ends with ','"},
      {"p s:1", "job name 'p s' must be letters"},
      {"9ps:1", "job name '9ps'"},
      {"a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1,i:1", "more than 8 jobs"},
      {"ps:1000,worker:100", "more than 1024 tasks in all"},
  };
  for (const auto& c : cases) {
    grt_cluster_spec s;
    std::string m = Message(grt_cluster_spec_parse(c.spec, &s));
    EXPECT_NE(m.find(c.says), std::string::npos) << c.spec << ": " << m;
  }
}

// Each limit at its edge, accepted, and one past it, refused: 1024 tasks in
// all, 8 jobs, a 31-letter job name, a task count of five digits. (A total
// check that refused 1024 itself, and a digit limit of six that took
// "000001", passed the cases above.)
TEST(ClusterSpec, LimitsHoldAtTheirEdges) {
  grt_cluster_spec s;
  ASSERT_EQ(Message(grt_cluster_spec_parse("ps:1000,worker:24", &s)), "OK");
  EXPECT_EQ(s.n_tasks, 1024);
  const char* job;
  int32_t task;
  grt_cluster_spec_task(&s, 1023, &job, &task);
  EXPECT_STREQ(job, "worker");
  EXPECT_EQ(task, 23);
  EXPECT_NE(Message(grt_cluster_spec_parse("ps:1000,worker:25", &s)).find("more than 1024 tasks"),
            std::string::npos);
  ASSERT_EQ(Message(grt_cluster_spec_parse("a:1,b:1,c:1,d:1,e:1,f:1,g:1,h:1", &s)), "OK");
  EXPECT_EQ(s.n_jobs, 8);
  std::string name(31, 'j');
  ASSERT_EQ(Message(grt_cluster_spec_parse((name + ":2").c_str(), &s)), "OK");
  EXPECT_EQ(std::string(s.job[0]), name);
  EXPECT_NE(Message(grt_cluster_spec_parse((name + "j:2").c_str(), &s)).find("cannot parse"),
            std::string::npos);
  ASSERT_EQ(Message(grt_cluster_spec_parse("w:00012", &s)), "OK");
  EXPECT_EQ(s.tasks[0], 12);
  EXPECT_NE(Message(grt_cluster_spec_parse("w:000001", &s)).find("task count '000001'"),
            std::string::npos);
}

TEST(ClusterOption, CheckedWhenSet) {
  grt_session_options* o;
  ASSERT_EQ(Message(grt_session_options_new(&o)), "OK");
  std::string m = Message(grt_session_options_set(o, "cluster", "ps:1,worker"));
  EXPECT_NE(m.find("cluster spec 'ps:1,worker': cannot parse 'worker'"), std::string::npos) << m;
  EXPECT_EQ(Message(grt_session_options_set(o, "cluster", "ps:1,worker:2")), "OK");
  EXPECT_EQ(Message(grt_session_options_set(o, "cluster", "")), "OK");
  grt_session_options_free(o);
}

// Without libgrt_transport_mpi.so (this test does not carry it, and
// GRT_PLUGIN_PATH is emptied) the session says what is missing.
TEST(ClusterOption, WithoutThePluginSaysWhatIsMissing) {
  setenv("GRT_PLUGIN_PATH", "", 1);
  const char* json =
      "{\"format\":\"grt.graph\",\"version\":1,\"nodes\":[{\"name\":\"a\",\"op\":\"Const\","
      "\"attrs\":{\"dtype\":\"float32\",\"value\":{\"dtype\":\"float32\",\"shape\":[],"
      "\"values\":[1]}}}]}";
  grt_graph* g;
  ASSERT_EQ(Message(grt_graph_from_json(json, strlen(json), &g)), "OK");
  grt_session_options* o;
  ASSERT_EQ(Message(grt_session_options_new(&o)), "OK");
  ASSERT_EQ(Message(grt_session_options_set(o, "cluster", "ps:1")), "OK");
  grt_session* s = nullptr;
  std::string m = Message(grt_session_new(g, o, &s));
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(m.find("a cluster needs the mpi transport plugin libgrt_transport_mpi.so, found "
                   "neither beside the library nor on GRT_PLUGIN_PATH"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  // A session without the option is as before.
  ASSERT_EQ(Message(grt_session_options_set(o, "cluster", "")), "OK");
  ASSERT_EQ(Message(grt_session_new(g, o, &s)), "OK");
  EXPECT_EQ(grt_session_cluster_rank(s), -1);
  grt_session_free(s);
  grt_session_options_free(o);
  grt_graph_free(g);
}

// A plugin built against an older transport table (its entry answers only
// for version 1) is refused with one line naming the file and the version.
TEST(ClusterOption, AnOlderPluginIsRefusedByName) {
  char buf[PATH_MAX];
  const char* rel = "tests/cluster/old/libgrt_transport_mpi.so";
  std::string path = realpath(rel, buf) ? std::string(buf) : rel;
  setenv("GRT_PLUGIN_PATH", path.c_str(), 1);
  const grt_transport* t = nullptr;
  std::string m = Message(grt_transport_open("mpi", &t));
  setenv("GRT_PLUGIN_PATH", "", 1);
  EXPECT_EQ(t, nullptr);
  EXPECT_NE(m.find(path + ": built for another transport API than this grt's (version 2, a "
                          "table of "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("rebuild the plugin with this grt"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

}  // namespace
