// The cluster's single-process paths against a transport written here (no
// MPI): the wire protocol (runtime/cluster/wire.c) round trip of tensors
// inline in the header, in a chunk after it, empty, and control signals; a
// header that is not grt's or whose byte count disagrees with its shape,
// refused by content; every transport failure named with the peer's task;
// abandoned sends and cancelled receives giving their requests back. Then
// tags, the chief, task names, all-reduce errors naming the group, and the
// liveness thread's view of a peer (liveness.c) through each state its
// notes can say: silent, in a run, between runs too long, failed this step
// or an earlier one, gone, and a transport error on the way to it.
//
// Each check guards a branch a plausible bug breaks: the inline limit
// flipped from <= to < makes the 64-byte tensor wait for a chunk that never
// comes; a dropped magic or byte-count check hands the executor a tensor
// made of garbage; comparing the failed note's run with > instead of >=
// ignores a peer that failed the very step this rank waits on.
#include <pthread.h>
#include <time.h>

#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/allocator.h"
#include "base/tensor.h"
#include "grt/grt.h"
#include "gtest/gtest.h"
#include "runtime/cluster/cluster.h"
#include "runtime/cluster/cluster_internal.h"
#include "runtime/cluster/liveness.h"

struct grt_transport_request {
  bool send;
  int32_t peer;
  int64_t tag;
  void* buf;
  size_t bytes;
};

namespace {

std::string Message(grt_status* st) {
  std::string m = st ? grt_status_message(st) : "OK";
  grt_status_free(st);
  return m;
}

// ---- the transport: this process is rank 0; the test speaks for the
// others, handing in their messages (Deliver) and reading what rank 0 sent.
struct Fake {
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  std::map<std::pair<int32_t, int64_t>, std::deque<std::string>> inbox;  // (peer, tag)
  std::vector<std::pair<std::pair<int32_t, int64_t>, std::string>> sent;
  std::set<int32_t> fail_isend, fail_irecv, fail_test;  // peers whose calls fail
  bool hold_sends = false;                              // sends stay pending
  bool fail_all_reduce = false, fail_all_reduce_test = false;
  int cancels = 0;
  // A test of a receive from this peer blocks until it is set back to -1:
  // the liveness thread held up inside the transport (behind its lock, or
  // not given the core).
  int32_t stall_peer = -1;
  pthread_cond_t unstall = PTHREAD_COND_INITIALIZER;
};
Fake* fake = new Fake;  // never freed: the liveness thread uses it at exit

struct Lock {
  Lock() { pthread_mutex_lock(&fake->mu); }
  ~Lock() { pthread_mutex_unlock(&fake->mu); }
};

int Why(char* why, size_t n, const char* what) {
  snprintf(why, n, "%s", what);
  return 1;
}

int64_t MaxTag() { return 32767; }

int AllGather(const void* in, size_t bytes, void* out, int64_t, char*, size_t) {
  memcpy(out, in, bytes);
  return 0;
}

int Isend(const void* data, size_t bytes, int32_t peer, int64_t tag, grt_transport_request** out,
          char* why, size_t n) {
  Lock l;
  if (fake->fail_isend.count(peer)) return Why(why, n, "isend refused");
  fake->sent.push_back({{peer, tag}, std::string(static_cast<const char*>(data), bytes)});
  *out = new grt_transport_request{true, peer, tag, nullptr, bytes};
  return 0;
}

int Irecv(void* data, size_t bytes, int32_t peer, int64_t tag, grt_transport_request** out,
          char* why, size_t n) {
  Lock l;
  if (fake->fail_irecv.count(peer)) return Why(why, n, "irecv refused");
  *out = new grt_transport_request{false, peer, tag, data, bytes};
  return 0;
}

int Test(grt_transport_request* r, int* done, char* why, size_t n) {
  Lock l;
  *done = 0;
  while (!r->send && r->peer == fake->stall_peer) pthread_cond_wait(&fake->unstall, &fake->mu);
  if (fake->fail_test.count(r->peer)) {
    delete r;
    return Why(why, n, "peer unreachable");
  }
  if (r->send) {
    if (fake->hold_sends) return 0;
    delete r;
    *done = 1;
    return 0;
  }
  auto& q = fake->inbox[{r->peer, r->tag}];
  if (q.empty()) return 0;
  std::string m = q.front();
  q.pop_front();
  if (m.size() != r->bytes) {
    delete r;
    return Why(why, n, "message truncated");
  }
  memcpy(r->buf, m.data(), m.size());
  delete r;
  *done = 1;
  return 0;
}

void Cancel(grt_transport_request* r) {
  Lock l;
  fake->cancels++;
  delete r;
}

int AllReduce(const void* in, void* out, int64_t count, int32_t dtype, grt_transport_request** req,
              char* why, size_t n) {
  Lock l;
  if (fake->fail_all_reduce) return Why(why, n, "all-reduce refused");
  memmove(out, in, (size_t)count * grt_dtype_size((grt_dtype)dtype));
  *req = new grt_transport_request{true, fake->fail_all_reduce_test ? 1 : 0, -1, nullptr, 0};
  return 0;
}

const grt_transport kTransport = {GRT_TRANSPORT_API_VERSION,
                                  sizeof(grt_transport),
                                  "fake",
                                  nullptr,
                                  MaxTag,
                                  AllGather,
                                  Isend,
                                  Irecv,
                                  Test,
                                  Cancel,
                                  AllReduce};

void Deliver(int32_t peer, int64_t tag, const std::string& bytes) {
  Lock l;
  fake->inbox[{peer, tag}].push_back(bytes);
}

std::vector<std::string> SentTo(int32_t peer, int64_t tag) {
  Lock l;
  std::vector<std::string> out;
  for (auto& m : fake->sent)
    if (m.first == std::make_pair(peer, tag)) out.push_back(m.second);
  return out;
}

void Reset() {
  Lock l;
  fake->inbox.clear();
  fake->sent.clear();
  fake->fail_isend.clear();
  fake->fail_irecv.clear();
  fake->fail_test.clear();
  fake->hold_sends = false;
  fake->fail_all_reduce = fake->fail_all_reduce_test = false;
  fake->cancels = 0;
}

// An abandoned send the transport may still read: the wire keeps it (and
// its tensor) for the process's life, by design, so LeakSanitizer must see
// it reachable.
void Keep(grt_wire_send* s) {
  static std::vector<grt_wire_send*>* kept = new std::vector<grt_wire_send*>;
  kept->push_back(s);
}

// A cluster of `spec` whose rank 0 is this process (what join makes,
// without joining).
struct Cluster {
  grt_cluster c{};
  char (*names)[96] = nullptr;
  explicit Cluster(const char* spec) {
    Reset();
    EXPECT_EQ(Message(grt_cluster_spec_parse(spec, &c.spec)), "OK");
    c.joined = true;
    c.t = &kTransport;
    c.rank = 0;
    c.size = c.spec.n_tasks;
    c.max_tag = MaxTag() - 1;
    names = new char[c.size][96];
    c.task_name = names;
    for (int32_t r = 0; r < c.size; r++) {
      const char* job;
      int32_t task;
      grt_cluster_spec_task(&c.spec, r, &job, &task);
      snprintf(names[r], sizeof names[r], "/job:%s/replica:0/task:%d", job, (int)task);
    }
  }
  ~Cluster() { delete[] names; }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;
};

// The wire's header as DESIGN.md describes it.
struct Header {
  uint32_t magic = 0x67727477;
  int32_t dtype, rank, pad = 0;
  uint64_t bytes;
  int64_t dims[GRT_MAX_RANK] = {};
  unsigned char small[64] = {};
};

std::string Bytes(const Header& h) {
  return std::string(reinterpret_cast<const char*>(&h), sizeof h);
}

grt_tensor* Iota(grt_dtype dt, std::vector<int64_t> dims) {
  grt_tensor* t = nullptr;
  EXPECT_EQ(Message(grt_tensor_new(dt, (int32_t)dims.size(), dims.data(), &t)), "OK");
  unsigned char* p = static_cast<unsigned char*>(grt_tensor_data(t));
  for (size_t i = 0; i < grt_tensor_byte_size(t); i++) p[i] = (unsigned char)(i * 7 + 1);
  return t;
}

// Sends `t` to peer 1, hands what was sent back in as peer 1's message and
// receives it: the tensor that arrives, and how many messages it took.
grt_tensor* RoundTrip(Cluster* k, grt_tensor* t, size_t* messages) {
  grt_wire_send* s = nullptr;
  EXPECT_EQ(Message(grt_wire_send_start(&k->c, 1, 40, t, &s)), "OK");
  EXPECT_EQ(grt_wire_send_peer(s), 1);
  bool done = false;
  EXPECT_EQ(Message(grt_wire_send_poll(&k->c, s, &done)), "OK");
  EXPECT_TRUE(done);
  std::vector<std::string> sent = SentTo(1, 40);
  *messages = sent.size();
  grt_wire_recv* r = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_start(&k->c, 1, 40, &r)), "OK");
  grt_tensor* out = nullptr;
  // Nothing has landed: still pending.
  EXPECT_EQ(Message(grt_wire_recv_poll(&k->c, r, grt_host_allocator(), &done, &out)), "OK");
  EXPECT_FALSE(done);
  for (size_t i = 0; i < sent.size(); i++) {
    Deliver(1, 40, sent[i]);
    EXPECT_EQ(Message(grt_wire_recv_poll(&k->c, r, grt_host_allocator(), &done, &out)), "OK");
    EXPECT_EQ(done, i + 1 == sent.size()) << "message " << i << " of " << sent.size();
  }
  if (!done) grt_wire_recv_cancel(&k->c, r);
  return out;
}

void ExpectSame(const grt_tensor* a, const grt_tensor* b) {
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(grt_tensor_dtype(a), grt_tensor_dtype(b));
  ASSERT_EQ(grt_tensor_rank(a), grt_tensor_rank(b));
  for (int32_t i = 0; i < grt_tensor_rank(a); i++)
    EXPECT_EQ(grt_tensor_dim(a, i), grt_tensor_dim(b, i));
  ASSERT_EQ(grt_tensor_byte_size(a), grt_tensor_byte_size(b));
  EXPECT_EQ(memcmp(grt_tensor_data(a), grt_tensor_data(b), grt_tensor_byte_size(a)), 0);
}

TEST(Wire, TensorsArriveAsSentInlineOrInAChunk) {
  Cluster k("worker:2");
  struct {
    grt_dtype dt;
    std::vector<int64_t> dims;
    size_t messages;  // header alone up to 64 bytes; header and one chunk past that
  } cases[] = {
      {GRT_FLOAT32, {2, 3}, 1},
      {GRT_INT64, {8}, 1},
      {GRT_UINT8, {65}, 2},
      {GRT_INT64, {20}, 2},
      {GRT_BOOL, {0, 5}, 1},
      {GRT_FLOAT64, {}, 1},
      {GRT_INT8, {2, 1, 1, 1, 1, 1, 1, 3}, 1},
  };
  for (auto& c : cases) {
    SCOPED_TRACE(std::string(grt_dtype_name(c.dt)) + " of " + std::to_string(c.dims.size()) +
                 " dims");
    grt_tensor* t = Iota(c.dt, c.dims);
    size_t messages = 0;
    grt_tensor* got = RoundTrip(&k, t, &messages);
    EXPECT_EQ(messages, c.messages);
    ExpectSame(t, got);
    grt_tensor_free(t);
    grt_tensor_free(got);
    Reset();
  }
}

TEST(Wire, AControlSignalIsAHeaderWithNoTensor) {
  Cluster k("worker:2");
  size_t messages = 0;
  grt_tensor* got = RoundTrip(&k, nullptr, &messages);
  EXPECT_EQ(messages, 1u);
  EXPECT_EQ(got, nullptr);
  std::vector<std::string> sent = SentTo(1, 40);
  ASSERT_EQ(sent.size(), 1u);
  Header h;
  ASSERT_EQ(sent[0].size(), sizeof h);
  memcpy(&h, sent[0].data(), sizeof h);
  EXPECT_EQ(h.dtype, -1);
  EXPECT_EQ(h.bytes, 0u);
}

// A header delivered from peer 1, received: the error, or "OK".
std::string Receive(Cluster* k, const Header& h, bool* done = nullptr) {
  Deliver(1, 7, Bytes(h));
  grt_wire_recv* r = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_start(&k->c, 1, 7, &r)), "OK");
  bool d = false;
  grt_tensor* out = nullptr;
  std::string m = Message(grt_wire_recv_poll(&k->c, r, grt_host_allocator(), &d, &out));
  if (!d) grt_wire_recv_cancel(&k->c, r);
  if (done) *done = d;
  grt_tensor_free(out);
  return m;
}

TEST(Wire, HeadersThatAreNotGrtsAreRefusedByContent) {
  Cluster k("ps:1,worker:1");
  Header h;
  h.dtype = GRT_FLOAT32;
  h.rank = 1;
  h.dims[0] = 2;
  h.bytes = 8;
  bool done = false;
  EXPECT_EQ(Receive(&k, h, &done), "OK");
  EXPECT_TRUE(done);
  const std::string from = "a message from /job:worker/replica:0/task:0 is not grt's";
  Header bad = h;
  bad.magic = 0x12345678;
  EXPECT_EQ(Receive(&k, bad), from + " (magic 12345678, dtype 3, rank 1)");
  bad = h;
  bad.dtype = GRT_NUM_DTYPES;
  EXPECT_EQ(Receive(&k, bad), from + " (magic 67727477, dtype 11, rank 1)");
  bad = h;
  bad.dtype = -2;
  EXPECT_EQ(Receive(&k, bad), from + " (magic 67727477, dtype -2, rank 1)");
  bad = h;
  bad.rank = GRT_MAX_RANK + 1;
  EXPECT_EQ(Receive(&k, bad), from + " (magic 67727477, dtype 3, rank 9)");
  bad = h;
  bad.rank = -1;
  EXPECT_EQ(Receive(&k, bad), from + " (magic 67727477, dtype 3, rank -1)");
  // The byte count must be the shape's.
  const std::string sizes = "a tensor from /job:worker/replica:0/task:0 has ";
  bad = h;
  bad.bytes = 12;
  EXPECT_EQ(Receive(&k, bad), sizes + "12 bytes for its shape and dtype float32");
  bad = h;
  bad.dims[0] = -3;
  EXPECT_EQ(Receive(&k, bad), sizes + "8 bytes for its shape and dtype float32");
  bad = h;
  bad.dtype = GRT_DTYPE_INVALID;
  bad.bytes = 0;
  EXPECT_EQ(Receive(&k, bad), sizes + "0 bytes for its shape and dtype invalid");
  // A header whose size is not the header's: the transport's error, named.
  Deliver(1, 7, "short");
  grt_wire_recv* r = nullptr;
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 7, &r)), "OK");
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)),
            "receiving from /job:worker/replica:0/task:0: message truncated");
  grt_wire_recv_cancel(&k.c, r);
}

TEST(Wire, TransportFailuresNameThePeersTask) {
  Cluster k("chief:1,worker:2");
  grt_tensor* small = Iota(GRT_FLOAT32, {4});
  grt_tensor* big = Iota(GRT_FLOAT32, {40});
  grt_wire_send* s = nullptr;
  fake->fail_isend.insert(2);
  fake->fail_isend.insert(5);
  EXPECT_EQ(Message(grt_wire_send_start(&k.c, 2, 3, small, &s)),
            "sending to /job:worker/replica:0/task:1: isend refused");
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(Message(grt_wire_send_start(&k.c, 5, 3, small, &s)),
            "sending to (no task): isend refused");
  Reset();
  fake->fail_test.insert(1);
  ASSERT_EQ(Message(grt_wire_send_start(&k.c, 1, 3, big, &s)), "OK");
  bool done = false;
  EXPECT_EQ(Message(grt_wire_send_poll(&k.c, s, &done)), "sending: peer unreachable");
  EXPECT_FALSE(done);
  grt_wire_send_abandon(&k.c, s);  // the chunk's request is still the transport's
  Keep(s);
  EXPECT_EQ(fake->cancels, 1);
  Reset();
  fake->fail_irecv.insert(1);
  grt_wire_recv* r = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)),
            "receiving from /job:worker/replica:0/task:0: irecv refused");
  EXPECT_EQ(r, nullptr);
  Reset();
  fake->fail_test.insert(1);
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)), "OK");
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)),
            "receiving from /job:worker/replica:0/task:0: peer unreachable");
  grt_wire_recv_cancel(&k.c, r);
  EXPECT_EQ(fake->cancels, 0);  // the failed request is the transport's no more
  // The header lands, the chunk cannot be posted.
  Reset();
  Header h;
  h.dtype = GRT_FLOAT32;
  h.rank = 1;
  h.dims[0] = 40;
  h.bytes = 160;
  Deliver(1, 3, Bytes(h));
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)), "OK");
  fake->fail_irecv.insert(1);
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)),
            "receiving from /job:worker/replica:0/task:0: irecv refused");
  grt_wire_recv_cancel(&k.c, r);
  // The header lands, the chunk's test fails.
  Reset();
  Deliver(1, 3, Bytes(h));
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)), "OK");
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)), "OK");
  EXPECT_FALSE(done);
  fake->fail_test.insert(1);
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)),
            "receiving from /job:worker/replica:0/task:0: peer unreachable");
  grt_wire_recv_cancel(&k.c, r);
  grt_tensor_free(small);
  grt_tensor_free(big);
}

TEST(Wire, GivingUpReturnsEveryPendingRequest) {
  Cluster k("worker:2");
  grt_tensor* big = Iota(GRT_FLOAT32, {40});
  fake->hold_sends = true;
  grt_wire_send* s = nullptr;
  ASSERT_EQ(Message(grt_wire_send_start(&k.c, 1, 3, big, &s)), "OK");
  bool done = true;
  EXPECT_EQ(Message(grt_wire_send_poll(&k.c, s, &done)), "OK");
  EXPECT_FALSE(done);
  grt_tensor_free(big);
  grt_wire_send_abandon(&k.c, s);  // header and chunk both pending
  Keep(s);
  EXPECT_EQ(fake->cancels, 2);
  grt_wire_send_abandon(&k.c, nullptr);
  // A receive cancelled with its header pending, then one with its chunk.
  grt_wire_recv* r = nullptr;
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)), "OK");
  grt_wire_recv_cancel(&k.c, r);
  EXPECT_EQ(fake->cancels, 3);
  Header h;
  h.dtype = GRT_FLOAT32;
  h.rank = 1;
  h.dims[0] = 40;
  h.bytes = 160;
  Deliver(1, 3, Bytes(h));
  ASSERT_EQ(Message(grt_wire_recv_start(&k.c, 1, 3, &r)), "OK");
  grt_tensor* out = nullptr;
  EXPECT_EQ(Message(grt_wire_recv_poll(&k.c, r, grt_host_allocator(), &done, &out)), "OK");
  EXPECT_FALSE(done);
  grt_wire_recv_cancel(&k.c, r);
  EXPECT_EQ(fake->cancels, 4);
  grt_wire_recv_cancel(&k.c, nullptr);
}

TEST(Cluster, TagsChiefsAndTaskNames) {
  Cluster k("ps:1,worker:2");
  int64_t tag = 0;
  EXPECT_EQ(Message(grt_cluster_tag(&k.c, 3, 4096 + 5, &tag)), "OK");
  EXPECT_EQ(tag, (3 << 12) | 5);  // the step modulo 2^12 below the crossing
  EXPECT_EQ(Message(grt_cluster_tag(&k.c, -1, 0, &tag)),
            "crossing -1 between tasks needs tag -4096, past the transport's largest (32766)");
  // The transport's largest tag is the liveness notes', the one below it
  // the checkpoints': no crossing takes either.
  EXPECT_EQ(Message(grt_cluster_tag(&k.c, 7, 4094, &tag)),
            "crossing 7 between tasks needs tag 32766, past the transport's largest (32766)");
  EXPECT_EQ(Message(grt_cluster_tag(&k.c, 7, 4093, &tag)), "OK");
  EXPECT_EQ(tag, 32765);
  EXPECT_EQ(grt_cluster_checkpoint_tag(&k.c), 32766);
  EXPECT_EQ(grt_cluster_chief(&k.c), 1);  // worker 0
  EXPECT_EQ(grt_cluster_rank(&k.c), 0);
  EXPECT_EQ(grt_cluster_size(&k.c), 3);
  EXPECT_STREQ(grt_cluster_task_name(&k.c, 2), "/job:worker/replica:0/task:1");
  EXPECT_STREQ(grt_cluster_task_name(&k.c, 3), "(no task)");
  EXPECT_STREQ(grt_cluster_task_name(&k.c, -1), "(no task)");
  Cluster chief("worker:2,chief:1");
  EXPECT_EQ(grt_cluster_chief(&chief.c), 2);
  Cluster neither("ps:2,evaluator:1");
  EXPECT_EQ(grt_cluster_chief(&neither.c), 0);
}

TEST(Cluster, AllReduceErrorsNameTheGroup) {
  Cluster k("worker:3");
  float in[3] = {1, 2, 3}, out[3] = {};
  grt_transport_request* req = nullptr;
  ASSERT_EQ(Message(grt_cluster_all_reduce_start(&k.c, "g", in, out, 3, GRT_FLOAT32, &req)), "OK");
  bool done = false;
  EXPECT_EQ(Message(grt_cluster_all_reduce_poll(&k.c, "g", req, &done)), "OK");
  EXPECT_TRUE(done);
  EXPECT_EQ(out[2], 3);
  fake->fail_all_reduce = true;
  EXPECT_EQ(Message(grt_cluster_all_reduce_start(&k.c, "grads/w", in, out, 3, GRT_FLOAT32, &req)),
            "all-reduce 'grads/w' of 3 float32 across the cluster's 3 tasks: all-reduce refused");
  EXPECT_EQ(req, nullptr);
  fake->fail_all_reduce = false;
  fake->fail_all_reduce_test = true;
  fake->fail_test.insert(1);
  ASSERT_EQ(Message(grt_cluster_all_reduce_start(&k.c, "grads/b", in, out, 3, GRT_FLOAT32, &req)),
            "OK");
  EXPECT_EQ(Message(grt_cluster_all_reduce_poll(&k.c, "grads/b", req, &done)),
            "all-reduce 'grads/b' across the cluster's 3 tasks: peer unreachable");
  fake->fail_test.clear();
  ASSERT_EQ(Message(grt_cluster_all_reduce_start(&k.c, "grads/c", in, out, 3, GRT_FLOAT32, &req)),
            "OK");
  grt_cluster_all_reduce_abandon(&k.c, req);
  EXPECT_EQ(fake->cancels, 1);
  grt_cluster_all_reduce_abandon(&k.c, nullptr);
  EXPECT_EQ(fake->cancels, 1);
}

// ---- liveness: one thread per process, so one test walks its states.

enum { kBetween = 0, kInRun = 1, kFailed = 2, kGone = 3 };
struct Note {
  uint32_t magic = 0x67726c76;
  int32_t state;
  int64_t runs;
};

std::string NoteBytes(int32_t state, int64_t runs, uint32_t magic = 0x67726c76) {
  Note n;
  n.magic = magic;
  n.state = state;
  n.runs = runs;
  return std::string(reinterpret_cast<const char*>(&n), sizeof n);
}

void SleepMs(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&t, nullptr);
}

// Waits up to 5 s for peer_check(peer, since, timeout) to say `want`.
std::string WaitFor(grt_cluster* c, int32_t peer, int64_t since, int64_t timeout,
                    const std::string& want) {
  std::string m;
  for (int i = 0; i < 500; i++) {
    m = Message(grt_cluster_peer_check(c, peer, since, timeout));
    if (m.find(want) != std::string::npos) return m;
    SleepMs(10);
  }
  return m;
}

// Waits up to 5 s for the liveness thread to take every note peer `r` sent.
void WaitTaken(int32_t r) {
  for (int i = 0; i < 500; i++) {
    {
      Lock l;
      if (fake->inbox[{r, 32767}].empty()) return;
    }
    SleepMs(10);
  }
  ADD_FAILURE() << "peer " << r << "'s notes were never taken";
}

// The notes rank 0 sent peer `r`, as states.
std::vector<int32_t> StatesSent(int32_t r) {
  std::vector<int32_t> out;
  for (auto& m : SentTo(r, 32767)) {
    Note n;
    if (m.size() != sizeof n) continue;
    memcpy(&n, m.data(), sizeof n);
    EXPECT_EQ(n.magic, 0x67726c76u);
    out.push_back(n.state);
  }
  return out;
}

// The liveness thread's cluster: one per process, kept for its life.
grt_cluster* Live() {
  static Cluster* k = new Cluster("worker:4");
  return &k->c;
}

TEST(Liveness, APeersNotesDecideWhetherToWaitOnIt) {
  grt_cluster* c = Live();
  // Before the thread starts nothing is known: no check fails.
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, grt_cluster_now_ms() - 100000, 1)), "OK");
  ASSERT_EQ(Message(grt_cluster_liveness_start(c)), "OK");
  ASSERT_EQ(Message(grt_cluster_liveness_start(c)), "OK");  // once per process
  // Not a peer: no check.
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 0, 0, 1)), "OK");
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 4, 0, 1)), "OK");
  EXPECT_EQ(Message(grt_cluster_peer_check(c, -1, 0, 1)), "OK");
  // Peer 1 is silent: fine without a timeout, lost with one it outlasted.
  int64_t t0 = grt_cluster_now_ms();
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, t0, 0)), "OK");
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, t0, 60000)), "OK");
  SleepMs(30);
  EXPECT_NE(WaitFor(c, 1, t0, 20, "not heard from")
                .find("lost /job:worker/replica:0/task:1: not heard from for "),
            std::string::npos);
  // In a run, heard; then, 300 ms later, between runs with no run begun
  // since: alive but in no run for longer than the timeout.
  Deliver(1, 32767, NoteBytes(kInRun, 1));
  WaitTaken(1);
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, t0, 60000)), "OK");
  SleepMs(300);
  // A note without the liveness magic is not heard, and listening goes on
  // even where its bytes read "gone".
  Deliver(1, 32767, NoteBytes(kGone, 9, 0x1234));
  Deliver(1, 32767, NoteBytes(kBetween, 1));
  std::string m = WaitFor(c, 1, t0, 200, "has not started");
  EXPECT_NE(m.find("/job:worker/replica:0/task:1 has not started its step in "), std::string::npos)
      << m;
  EXPECT_NE(m.find("cluster_peer_timeout_ms=200"), std::string::npos) << m;
  Deliver(1, 32767, NoteBytes(kFailed, 9, 0x1234));
  WaitTaken(1);
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, grt_cluster_now_ms(), 0)), "OK");
  // It failed run 1; this rank is in its run 1 too: that step failed.
  Deliver(1, 32767, NoteBytes(kFailed, 1));
  EXPECT_EQ(WaitFor(c, 1, grt_cluster_now_ms(), 0, "failed"),
            "/job:worker/replica:0/task:1 failed its run of this step (its own error says why)");
  grt_cluster_run_begin(c);  // run 1 here: the same step as the peer's failed one
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, grt_cluster_now_ms(), 0)),
            "/job:worker/replica:0/task:1 failed its run of this step (its own error says why)");
  grt_cluster_run_end(c, false);
  grt_cluster_run_begin(c);  // run 2: the peer's failure was an earlier step's
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 1, grt_cluster_now_ms(), 0)), "OK");
  // This rank's failure is told at once, not at the next beat.
  grt_cluster_run_end(c, true);
  bool told = false;
  for (int i = 0; i < 500 && !told; i++, SleepMs(10)) {
    std::vector<int32_t> states = StatesSent(2);
    told = !states.empty() && states.back() == kFailed;
  }
  EXPECT_TRUE(told) << "rank 0's failure never reached peer 2";
  std::vector<int32_t> to2 = StatesSent(2);
  ASSERT_FALSE(to2.empty());
  EXPECT_EQ(to2.front(), kBetween);  // the first note: joined, between runs
  // Gone: lost, whatever the timeout.
  Deliver(1, 32767, NoteBytes(kGone, 2));
  EXPECT_EQ(WaitFor(c, 1, grt_cluster_now_ms(), 0, "ended"),
            "lost /job:worker/replica:0/task:1: its process ended (it left the cluster)");
  // A transport error on the way to peer 3: lost, with the transport's words.
  {
    Lock l;
    fake->fail_test.insert(3);
  }
  Deliver(3, 32767, NoteBytes(kInRun, 1));
  EXPECT_EQ(WaitFor(c, 3, grt_cluster_now_ms(), 0, "lost"),
            "lost /job:worker/replica:0/task:3: peer unreachable");
  // Peer 2 stays healthy throughout once it speaks.
  Deliver(2, 32767, NoteBytes(kInRun, 3));
  EXPECT_EQ(WaitFor(c, 2, grt_cluster_now_ms(), 60000, "OK"), "OK");
}

// A peer's notes while this process's liveness thread is held up inside
// the transport's test (as behind the plugin's lock, or off the core on an
// overloaded host) for a second, longer than the 300 ms timeout: a note
// every 50 ms saying `state`, its run count from `runs` (moving by one a
// note when `moving`: a peer running short steps, seen between runs).
// Checks every 100 ms meanwhile that the peer is not given up, then lets
// the thread take the notes.
struct Talk {
  int32_t state;
  int64_t runs;
  bool moving;
};

void* Talking(void* arg) {
  const Talk* t = static_cast<const Talk*>(arg);
  for (int i = 0; i < 20; i++) {
    Deliver(2, 32767, NoteBytes(t->state, t->runs + (t->moving ? i : 0)));
    SleepMs(50);
  }
  return nullptr;
}

void StalledWhileItTalks(grt_cluster* c, int64_t since, Talk talk) {
  {
    Lock l;
    fake->stall_peer = 2;
  }
  pthread_t sender;
  ASSERT_EQ(pthread_create(&sender, nullptr, Talking, &talk), 0);
  for (int i = 0; i < 10; i++) {
    SleepMs(100);
    EXPECT_EQ(Message(grt_cluster_peer_check(c, 2, since, 300)), "OK")
        << "at " << (i + 1) * 100 << " ms of the stall";
  }
  pthread_join(sender, nullptr);
  {
    Lock l;
    fake->stall_peer = -1;
    pthread_cond_broadcast(&fake->unstall);
  }
  WaitTaken(2);
  EXPECT_EQ(Message(grt_cluster_peer_check(c, 2, since, 300)), "OK");
}

// A live peer is neither lost nor idle while this process's own thread
// is held up: its notes wait to be taken, and silence and idleness are
// measured up to when this process last listened. Measured up to now (as
// liveness.c did before) the checks say "lost ...: not heard from for 303
// ms" from the stall's third check on, in a run and between short runs
// alike (silence is judged first). A peer that then falls silent is still
// lost within the timeout.
TEST(Liveness, AStalledListenerDoesNotLoseALivePeer) {
  grt_cluster* c = Live();  // started by the test above
  ASSERT_EQ(Message(grt_cluster_liveness_start(c)), "OK");
  Deliver(2, 32767, NoteBytes(kInRun, 4));
  WaitTaken(2);
  int64_t t0 = grt_cluster_now_ms();
  ASSERT_EQ(Message(grt_cluster_peer_check(c, 2, t0, 300)), "OK");
  StalledWhileItTalks(c, t0, {kInRun, 4, false});
  // Between runs at every note, its count moving: running short steps.
  Deliver(2, 32767, NoteBytes(kBetween, 10));
  WaitTaken(2);
  int64_t t1 = grt_cluster_now_ms();
  ASSERT_EQ(Message(grt_cluster_peer_check(c, 2, t1, 300)), "OK");
  StalledWhileItTalks(c, t1, {kBetween, 11, true});
  // Now it falls silent: lost once the thread has listened for 300 ms.
  int64_t t2 = grt_cluster_now_ms();
  std::string m = WaitFor(c, 2, t2, 300, "not heard from");
  EXPECT_NE(m.find("lost /job:worker/replica:0/task:2: not heard from for "), std::string::npos)
      << m;
  EXPECT_LT(grt_cluster_now_ms() - t2, 3000);  // the timeout, a quarter beat, a loaded host
}

}  // namespace
