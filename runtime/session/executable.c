/* From (feeds, fetches, targets) to a cached executable: prune the graph to
 * what the run needs, cut it at device boundaries with Send/Recv pairs (one
 * per tensor and destination device, and one per crossing control edge),
 * and lay out pending counts, successor lists and value slots: build() runs
 * these as steps, one function each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "runtime/session/session_internal.h"

#define OOM() GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory preparing the run")

/* A growable int32 array. */
typedef struct {
  int32_t* v;
  int32_t n, cap;
} ivec;

static bool ivec_push(ivec* a, int32_t x) {
  if (a->n == a->cap) {
    int32_t cap = a->cap ? a->cap * 2 : 64;
    int32_t* v = grt_realloc(a->v, (size_t)cap * sizeof *v);
    if (!v) return false;
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return true;
}

/* "node" or "node:k" resolved against the graph. */
static grt_status* parse_tensor_name(const grt_graph* g, const char* what, const char* name,
                                     int32_t* node, int32_t* port) {
  const char* src;
  size_t len;
  bool control;
  if (!name || !grt_parse_input_spec(name, &src, &len, port, &control) || control)
    return GRT_ERROR(INVALID_ARGUMENT, "%s '%s' is not a tensor name (\"node\" or \"node:k\")",
                     what, name ? name : "(null)");
  *node = grt_strmap_getn(&g->by_name, src, len);
  if (*node < 0)
    return GRT_ERROR(NOT_FOUND, "%s '%s': the graph has no node named '%.*s'", what, name, (int)len,
                     src);
  const grt_node* n = &g->nodes[*node];
  if (*port >= n->sig.n_outputs)
    return GRT_ERROR(OUT_OF_RANGE, "%s '%s': node '%s' (%s) has %d output%s", what, name, n->name,
                     n->op, (int)n->sig.n_outputs, n->sig.n_outputs == 1 ? "" : "s");
  return NULL;
}

/* The run key: feeds and fetches in the caller's order (feed slots and
 * results are laid out in it), targets sorted (their order changes nothing). */
static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static char* make_key(const grt_feed* feeds, int32_t nf, const char* const* fetches, int32_t nx,
                      const char* const* targets, int32_t nt) {
  size_t len = 8;
  for (int32_t i = 0; i < nf; i++) len += strlen(feeds[i].name ? feeds[i].name : "") + 1;
  for (int32_t i = 0; i < nx; i++) len += strlen(fetches[i] ? fetches[i] : "") + 1;
  for (int32_t i = 0; i < nt; i++) len += strlen(targets[i] ? targets[i] : "") + 1;
  const char** tmp = grt_malloc(((size_t)nt + 1) * sizeof *tmp);
  char* key = grt_malloc(len);
  if (!tmp || !key) {
    grt_free(tmp);
    grt_free(key);
    return NULL;
  }
  size_t at = 0;
  for (int32_t i = 0; i < nf; i++)
    at += (size_t)sprintf(key + at, "%s,", feeds[i].name ? feeds[i].name : "");
  key[at++] = '|';
  for (int32_t i = 0; i < nx; i++)
    at += (size_t)sprintf(key + at, "%s,", fetches[i] ? fetches[i] : "");
  key[at++] = '|';
  for (int32_t i = 0; i < nt; i++) tmp[i] = targets[i] ? targets[i] : "";
  qsort(tmp, (size_t)nt, sizeof *tmp, cmp_str);
  for (int32_t i = 0; i < nt; i++) at += (size_t)sprintf(key + at, "%s,", tmp[i]);
  key[at] = '\0';
  grt_free(tmp);
  return key;
}

/* Copies keyed by (source node, port or -1, destination device). */
typedef struct {
  int64_t* keys;
  int32_t* send;
  size_t cap;
} copy_map;

static int64_t copy_key(int32_t src, int32_t port, int32_t dev) {
  return ((int64_t)src << 32) | ((int64_t)(port + 1) << 12) | dev;
}

static int32_t* copy_slot(copy_map* m, int64_t key) {
  size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (m->cap - 1);
  while (m->keys[h] != -1 && m->keys[h] != key) h = (h + 1) & (m->cap - 1);
  m->keys[h] = key;
  return &m->send[h];
}

/* The state of one grt_executable_build: the exec nodes and edges made so
 * far, and the run's feeds and fetches indexed for the steps of build(). */
typedef struct {
  grt_session* s;
  const grt_graph* g;
  grt_executable* e;
  exec_node* nodes;
  int32_t n_nodes, cap_nodes;
  ivec edge_from, edge_to;
  ivec in_slots;
  int32_t n_slots;
  copy_map copies;
  /* the signature by node and port (index_signature) */
  int32_t nf, nx;
  int32_t *feed_node, *feed_port, *fetch_node, *fetch_port;
  uint8_t* has_feed; /* nodes with any fed output */
  uint8_t* touched;  /* fed, fetched or targeted: not swallowed by a rewrite */
  /* per graph node: its exec node, -1 when pruned (-2 while pruning) */
  int32_t* exec_of;
  int32_t n_kernels; /* exec nodes [0, n_kernels) run graph nodes, in graph order */
  /* A cluster session's crossings between tasks, (src, port + 1, dst rank)
   * sorted: a crossing's index is its tag (cluster_crossings). */
  int64_t* crossings;
  int32_t n_crossings;
  ivec remote_recvs;
} builder;

/* A node another task runs: exec_of marks it so while building. */
enum { kRemote = -3 };

static grt_status* add_exec(builder* b, int32_t node, int32_t device, uint8_t kind,
                            int32_t n_outputs, int32_t* out_index) {
  if (b->n_nodes == b->cap_nodes) {
    int32_t cap = b->cap_nodes ? b->cap_nodes * 2 : 64;
    exec_node* v = grt_realloc(b->nodes, (size_t)cap * sizeof *v);
    if (!v) return OOM();
    b->nodes = v;
    b->cap_nodes = cap;
  }
  exec_node* x = &b->nodes[b->n_nodes];
  memset(x, 0, sizeof *x);
  x->node = node;
  x->device = device;
  x->kind = kind;
  x->n_outputs = n_outputs;
  x->out_start = b->n_slots;
  x->peer = -1;
  x->remote_peer = -1;
  b->n_slots += n_outputs;
  *out_index = b->n_nodes++;
  return NULL;
}

static grt_status* add_edge(builder* b, int32_t from, int32_t to) {
  if (!ivec_push(&b->edge_from, from) || !ivec_push(&b->edge_to, to)) return OOM();
  b->nodes[to].pending++;
  return NULL;
}

/* The copy the plan lists for (src, port) into device dst, or NULL: the
 * executable inserts exactly the plan's copies. */
static const grt_plan_copy* plan_copy(const grt_plan* p, int32_t src, int32_t port, int32_t dst) {
  int32_t lo = 0, hi = grt_plan_num_copies(p);
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const grt_plan_copy* c = grt_plan_copy_at(p, mid);
    int less = c->src != src     ? c->src < src
               : c->port != port ? c->port < port
                                 : c->dst_device < dst;
    if (less)
      lo = mid + 1;
    else
      hi = mid;
  }
  const grt_plan_copy* c = lo < grt_plan_num_copies(p) ? grt_plan_copy_at(p, lo) : NULL;
  return c && c->src == src && c->port == port && c->dst_device == dst ? c : NULL;
}

/* One side of a copy: where its value comes from. `from` is the exec node
 * that produces it (-1 for a feed), `key` identifies the value (a graph
 * node, or n_nodes + feed index), `slot` holds it, on device `device`. */
typedef struct {
  int32_t from, key, port, slot, device;
  bool host;
} copy_source;

/* The Recv on `dev` that delivers `src` (a control signal when port is -1),
 * made with its Send on first use: one pair per value and destination. */
static grt_status* crossing(builder* b, const copy_source* src, int32_t dev, bool dst_host,
                            int32_t* out_recv) {
  int32_t* slot = copy_slot(&b->copies, copy_key(src->key, src->port, dev));
  if (*slot >= 0) {
    *out_recv = b->nodes[*slot].peer;
    return NULL;
  }
  int32_t node = src->from >= 0 ? b->nodes[src->from].node : -1;
  int32_t send, recv;
  GRT_RETURN_IF_ERROR(add_exec(b, node, src->device, EXEC_SEND, 0, &send));
  GRT_RETURN_IF_ERROR(add_exec(b, node, dev, EXEC_RECV, src->port >= 0 ? 1 : 0, &recv));
  exec_node* x = &b->nodes[send];
  x->peer = recv;
  x->src_host = src->host;
  x->dst_host = dst_host;
  b->nodes[recv].peer = send;
  x->in_start = b->in_slots.n;
  if (src->port >= 0) {
    x->n_inputs = 1;
    if (!ivec_push(&b->in_slots, src->slot)) return OOM();
  }
  if (src->from >= 0) GRT_RETURN_IF_ERROR(add_edge(b, src->from, send));
  GRT_RETURN_IF_ERROR(add_edge(b, send, recv));
  *slot = send;
  *out_recv = recv;
  return NULL;
}

/* A graph edge (src, port) into device dev, as the plan's copy. */
static grt_status* plan_crossing(builder* b, const int32_t* exec_of, int32_t src, int32_t port,
                                 int32_t dev, bool dst_host, int32_t* out_recv) {
  const grt_plan_copy* c = plan_copy(b->s->plan, src, port, dev);
  if (!c)
    return GRT_ERROR(INTERNAL, "the plan lists no copy of %s:%d to %s", b->g->nodes[src].name,
                     (int)port, grt_device_set_name(b->s->devices, dev));
  int32_t from = exec_of[src];
  copy_source cs = {from,          src,
                    port,          port >= 0 ? b->nodes[from].out_start + port : -1,
                    c->src_device, c->src_host_memory};
  return crossing(b, &cs, dev, dst_host, out_recv);
}

static bool host_addressable(const builder* b, int32_t dev) {
  return b->s->device[dev] && b->s->device[dev]->host_addressable;
}

/* Feeds arrive in host memory, fetches leave from it, and values between
 * tasks travel in it: this process's first device the host can address
 * (CPU:0 of its task) stands for the host. */
static int32_t host_device(const builder* b) {
  for (int32_t d = 0; d < b->s->n_devices; d++)
    if (host_addressable(b, d)) return d;
  return 0;
}

/* Small kernels run inline: known outputs of at most this many elements. */
enum { kInlineElements = 4096 };

static bool cheap(const grt_node* n, const grt_op_kernel* k) {
  if (k && (k->flags & GRT_KERNEL_CHEAP)) return true;
  for (int32_t i = 0; i < n->sig.n_outputs; i++) {
    int64_t e = grt_shape_num_elements(&n->sig.output_shapes[i]);
    if (n->sig.output_is_ref[i]) continue;
    if (e < 0 || e > kInlineElements) return false;
  }
  return true;
}

/* Which feed (index) stands for output `port` of `node`, or -1. has_feed
 * marks nodes with any fed output, so unfed nodes cost one load. */
static int32_t fed_index(const builder* b, int32_t node, int32_t port) {
  if (!b->has_feed[node]) return -1;
  for (int32_t k = 0; k < b->nf; k++)
    if (b->feed_node[k] == node && b->feed_port[k] == port) return k;
  return -1;
}

/* Step 1: the signature's feeds and fetches by node and port, the nodes
 * they and the targets touch, and a check that no tensor is fed twice. */
static grt_status* index_signature(builder* b, const grt_run_signature* sig) {
  int32_t nn = b->g->n_nodes, nf = sig->n_feeds, nx = sig->n_fetches;
  b->feed_node = grt_malloc(((size_t)nf + 1) * sizeof *b->feed_node);
  b->feed_port = grt_malloc(((size_t)nf + 1) * sizeof *b->feed_port);
  b->fetch_node = grt_malloc(((size_t)nx + 1) * sizeof *b->fetch_node);
  b->fetch_port = grt_malloc(((size_t)nx + 1) * sizeof *b->fetch_port);
  b->exec_of = grt_malloc(((size_t)nn + 1) * sizeof *b->exec_of);
  b->has_feed = grt_calloc((size_t)nn + 1, 1);
  b->touched = grt_calloc((size_t)nn + 1, 1);
  if (!b->feed_node || !b->feed_port || !b->fetch_node || !b->fetch_port || !b->exec_of ||
      !b->has_feed || !b->touched)
    return OOM();
  for (int32_t i = 0; i < nn; i++) b->exec_of[i] = -1;
  for (int32_t i = 0; i < nf; i++) {
    int32_t node = sig->feeds[i].node, port = sig->feeds[i].port;
    b->nf = i; /* fed_index looks at the feeds before this one */
    if (fed_index(b, node, port) >= 0)
      return GRT_ERROR(INVALID_ARGUMENT, "feed '%s:%d' is given twice", b->g->nodes[node].name,
                       (int)port);
    b->feed_node[i] = node;
    b->feed_port[i] = port;
    b->has_feed[node] = 1;
    b->touched[node] = 1;
  }
  b->nf = nf;
  b->nx = nx;
  for (int32_t i = 0; i < nx; i++) {
    b->fetch_node[i] = sig->fetches[i].node;
    b->fetch_port[i] = sig->fetches[i].port;
    b->touched[b->fetch_node[i]] = 1;
  }
  for (int32_t i = 0; i < sig->n_targets; i++) b->touched[sig->targets[i]] = 1;
  return NULL;
}

/* ---- crossings between the tasks of a cluster (runtime/cluster) ------- */

static int32_t rank_of(const builder* b, int32_t node) {
  return grt_cluster_device_rank(b->s->cluster, b->s->devices,
                                 grt_plan_node_device(b->s->plan, node));
}

/* (src, port, dst rank) as one sortable key. */
static int64_t crossing_key(int32_t src, int32_t port, int32_t rank) {
  return ((int64_t)src << 26) | ((int64_t)(port + 1) << 10) | rank;
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

static grt_status* push_crossing(builder* b, int32_t src, int32_t port, int32_t rank,
                                 int32_t* cap) {
  if (b->n_crossings == *cap) {
    int32_t n = *cap ? *cap * 2 : 64;
    int64_t* v = grt_realloc(b->crossings, (size_t)n * sizeof *v);
    if (!v) return OOM();
    b->crossings = v;
    *cap = n;
  }
  b->crossings[b->n_crossings++] = crossing_key(src, port, rank);
  return NULL;
}

/* Every value (and control signal) the run sends from one task to another,
 * with fetches to rank 0, sorted: every rank computes the same list from
 * the same graph, plan and pruning, so an index names one message. */
static grt_status* cluster_crossings(builder* b) {
  if (!b->s->cluster) return NULL;
  int32_t cap = 0;
  for (int32_t v = 0; v < b->g->n_nodes; v++) {
    if (b->exec_of[v] == -1) continue;
    const grt_node* n = &b->g->nodes[v];
    int32_t rv = rank_of(b, v);
    for (int32_t i = 0; i < n->n_inputs; i++)
      if (fed_index(b, n->inputs[i].src, n->inputs[i].port) < 0 &&
          rank_of(b, n->inputs[i].src) != rv)
        GRT_RETURN_IF_ERROR(push_crossing(b, n->inputs[i].src, n->inputs[i].port, rv, &cap));
    for (int32_t i = 0; i < n->n_controls; i++)
      if (rank_of(b, n->controls[i].src) != rv)
        GRT_RETURN_IF_ERROR(push_crossing(b, n->controls[i].src, -1, rv, &cap));
  }
  for (int32_t i = 0; i < b->nx; i++)
    if (fed_index(b, b->fetch_node[i], b->fetch_port[i]) < 0 && rank_of(b, b->fetch_node[i]) != 0)
      GRT_RETURN_IF_ERROR(push_crossing(b, b->fetch_node[i], b->fetch_port[i], 0, &cap));
  if (b->n_crossings) qsort(b->crossings, (size_t)b->n_crossings, sizeof *b->crossings, cmp_i64);
  int32_t m = 0;
  for (int32_t i = 0; i < b->n_crossings; i++)
    if (m == 0 || b->crossings[m - 1] != b->crossings[i]) b->crossings[m++] = b->crossings[i];
  b->n_crossings = m;
  return NULL;
}

static int32_t crossing_index(const builder* b, int32_t src, int32_t port, int32_t rank) {
  int64_t key = crossing_key(src, port, rank);
  const int64_t* f = bsearch(&key, b->crossings, (size_t)b->n_crossings, sizeof key, cmp_i64);
  return f ? (int32_t)(f - b->crossings) : -1;
}

/* Copy-map keys of remote crossings: device fields no device set reaches. */
enum { kRemoteRecvDev = 2047, kRemoteSendDev = 2048 };

/* The receive of (src, port) from the task that runs src, for local
 * device `dev`: one per value and task, on this task's host device (the
 * value arrives in host memory). A device whose memory the host cannot
 * address (a GPU) gets it through a copy from there, as a value crossing
 * devices within the task does; a control signal needs no copy. */
static grt_status* remote_recv(builder* b, int32_t src, int32_t port, int32_t dev, bool dst_host,
                               int32_t* out_recv) {
  int32_t* slot = copy_slot(&b->copies, copy_key(src, port, kRemoteRecvDev));
  if (*slot < 0) {
    int32_t recv, at = host_addressable(b, dev) ? dev : host_device(b);
    GRT_RETURN_IF_ERROR(add_exec(b, src, at, EXEC_RECV, port >= 0 ? 1 : 0, &recv));
    exec_node* x = &b->nodes[recv];
    x->remote_peer = rank_of(b, src);
    x->crossing = crossing_index(b, src, port, grt_cluster_rank(b->s->cluster));
    x->remote_port = port;
    /* Not ready at the start: the run's thread completes it when its
     * message has landed (executor.c). */
    x->pending = 1;
    if (x->crossing < 0 || !ivec_push(&b->remote_recvs, recv))
      return x->crossing < 0 ? GRT_ERROR(INTERNAL, "no crossing for '%s'", b->g->nodes[src].name)
                             : OOM();
    *slot = recv;
  }
  *out_recv = *slot;
  if (port < 0 || host_addressable(b, dev)) return NULL;
  int32_t landed = *slot;
  copy_source cs = {landed, src, port, b->nodes[landed].out_start, b->nodes[landed].device, true};
  return crossing(b, &cs, dev, dst_host, out_recv);
}

/* The send of (src, port) from this task to `rank`, one per value and
 * destination task, from this task's host device: a value in the memory of
 * a device the host cannot address is first copied to host memory there. */
static grt_status* remote_send(builder* b, int32_t src, int32_t port, int32_t rank) {
  int32_t* slot = copy_slot(&b->copies, copy_key(src, port, kRemoteSendDev + rank));
  if (*slot >= 0) return NULL;
  int32_t from = b->exec_of[src], dev = b->nodes[from].device;
  int32_t in_slot = port >= 0 ? b->nodes[from].out_start + port : -1;
  if (port >= 0 && !host_addressable(b, dev) &&
      !grt_plan_output_in_host_memory(b->s->plan, src, port)) {
    copy_source cs = {from, src, port, in_slot, dev, false};
    int32_t staged;
    GRT_RETURN_IF_ERROR(crossing(b, &cs, host_device(b), true, &staged));
    from = staged;
    dev = b->nodes[staged].device;
    in_slot = b->nodes[staged].out_start;
  }
  int32_t send;
  GRT_RETURN_IF_ERROR(add_exec(b, src, dev, EXEC_SEND, 0, &send));
  exec_node* x = &b->nodes[send];
  x->remote_peer = rank;
  x->crossing = crossing_index(b, src, port, rank);
  x->remote_port = port;
  if (x->crossing < 0) return GRT_ERROR(INTERNAL, "no crossing for '%s'", b->g->nodes[src].name);
  x->in_start = b->in_slots.n;
  if (port >= 0) {
    x->n_inputs = 1;
    if (!ivec_push(&b->in_slots, in_slot)) return OOM();
  }
  *slot = send;
  return b->nodes[from].preset ? NULL : add_edge(b, from, send);
}

/* The sends of this task's values to the nodes other tasks run. */
static grt_status* connect_remote(builder* b) {
  for (int32_t v = 0; b->s->cluster && v < b->g->n_nodes; v++) {
    if (b->exec_of[v] != kRemote) continue;
    const grt_node* n = &b->g->nodes[v];
    int32_t rv = rank_of(b, v);
    for (int32_t i = 0; i < n->n_inputs; i++) {
      int32_t src = n->inputs[i].src;
      if (fed_index(b, src, n->inputs[i].port) < 0 && b->exec_of[src] >= 0)
        GRT_RETURN_IF_ERROR(remote_send(b, src, n->inputs[i].port, rv));
    }
    for (int32_t i = 0; i < n->n_controls; i++)
      if (b->exec_of[n->controls[i].src] >= 0)
        GRT_RETURN_IF_ERROR(remote_send(b, n->controls[i].src, -1, rv));
  }
  return NULL;
}

/* Step 2, prune: marks with exec_of -2 what the fetches and targets reach
 * through unfed edges. */
static grt_status* prune(builder* b, const grt_run_signature* sig) {
  const grt_graph* g = b->g;
  ivec stack = {0};
  grt_status* st = NULL;
  for (int32_t i = 0; i < b->nx; i++) {
    int32_t v = b->fetch_node[i];
    if (fed_index(b, v, b->fetch_port[i]) < 0 && !ivec_push(&stack, v)) st = OOM();
  }
  for (int32_t i = 0; !st && i < sig->n_targets; i++)
    if (!ivec_push(&stack, sig->targets[i])) st = OOM();
  while (!st && stack.n > 0) {
    int32_t v = stack.v[--stack.n];
    if (b->exec_of[v] == -2) continue;
    b->exec_of[v] = -2;
    const grt_node* n = &g->nodes[v];
    const grt_rewritten* rw = grt_remap_for(b->s->remap, v, b->touched);
    const grt_input* ins = rw ? rw->inputs : n->inputs;
    int32_t n_ins = rw ? rw->n_inputs : n->n_inputs;
    for (int32_t i = 0; !st && i < n_ins; i++) {
      int32_t src = ins[i].src;
      bool fed = fed_index(b, src, ins[i].port) >= 0;
      if (!fed && b->exec_of[src] != -2 && !ivec_push(&stack, src)) st = OOM();
    }
    for (int32_t i = 0; !st && i < n->n_controls; i++)
      if (b->exec_of[n->controls[i].src] != -2 && !ivec_push(&stack, n->controls[i].src))
        st = OOM();
  }
  grt_free(stack.v);
  return st;
}

/* Step 3: an exec node per graph node the run keeps, in graph order, on
 * the plan's device; then a value slot per feed. */
static grt_status* add_kernels(builder* b) {
  grt_executable* e = b->e;
  for (int32_t v = 0; v < b->g->n_nodes; v++) {
    if (b->exec_of[v] != -2) {
      b->exec_of[v] = -1;
      continue;
    }
    if (grt_session_node_is_remote(b->s, v)) {
      b->exec_of[v] = kRemote;
      continue;
    }
    GRT_RETURN_IF_ERROR(add_exec(b, v, grt_plan_node_device(b->s->plan, v), EXEC_KERNEL,
                                 b->g->nodes[v].sig.n_outputs, &b->exec_of[v]));
    b->nodes[b->exec_of[v]].rw = grt_remap_for(b->s->remap, v, b->touched);
  }
  b->n_kernels = b->n_nodes;
  e->n_feeds = b->nf;
  e->feed_slots = grt_malloc(((size_t)b->nf + 1) * sizeof *e->feed_slots);
  if (!e->feed_slots) return OOM();
  for (int32_t i = 0; i < b->nf; i++) e->feed_slots[i] = b->n_slots++;
  return NULL;
}

/* An empty copy map with room for the crossings of n_kernels nodes. */
static grt_status* copies_init(builder* b) {
  b->copies.cap = 64;
  while (b->copies.cap < ((size_t)b->n_kernels + (size_t)b->n_crossings) * 4) b->copies.cap *= 2;
  b->copies.keys = grt_malloc(b->copies.cap * sizeof *b->copies.keys);
  b->copies.send = grt_malloc(b->copies.cap * sizeof *b->copies.send);
  if (!b->copies.keys || !b->copies.send) return OOM();
  for (size_t i = 0; i < b->copies.cap; i++) {
    b->copies.keys[i] = -1;
    b->copies.send[i] = -1;
  }
  return NULL;
}

/* Constants on host devices need no run: their value is the graph's. */
static void preset_constants(builder* b) {
  for (int32_t x = 0; x < b->n_kernels; x++) {
    const grt_node* n = &b->g->nodes[b->nodes[x].node];
    const grt_attr_value* v = grt_node_attr(n, "value");
    if (strcmp(n->op, "Const") == 0 && n->n_controls == 0 && v && v->type == GRT_ATTR_TENSOR &&
        host_addressable(b, b->nodes[x].device))
      b->nodes[x].preset = v->u.tensor;
  }
}

/* The slot kernel x reads input i from (src, port) into `slots[i]`, with
 * the edge that orders it: the feed's slot, the producer's output on the
 * same device, or a Recv of the copy across devices. */
static grt_status* connect_input(builder* b, int32_t x, int32_t i, int32_t src, int32_t port,
                                 int32_t* slots) {
  const grt_rewritten* rw = b->nodes[x].rw;
  int32_t v = b->nodes[x].node, dev = b->nodes[x].device;
  int32_t fi = fed_index(b, src, port);
  bool dst_host =
      rw ? grt_plan_input_in_host_memory(b->s->plan, rw->input_owner[i], rw->input_index[i])
         : grt_plan_input_in_host_memory(b->s->plan, v, i);
  int32_t recv = -1;
  if (fi >= 0 && host_addressable(b, dev)) {
    slots[i] = b->e->feed_slots[fi]; /* fed values are host tensors */
    return NULL;
  }
  if (fi >= 0) {
    copy_source cs = {-1, b->g->n_nodes + fi, 0, b->e->feed_slots[fi], host_device(b), true};
    GRT_RETURN_IF_ERROR(crossing(b, &cs, dev, dst_host, &recv));
  } else if (b->exec_of[src] == kRemote) {
    GRT_RETURN_IF_ERROR(remote_recv(b, src, port, dev, dst_host, &recv));
  } else if (b->nodes[b->exec_of[src]].device == dev) {
    int32_t from = b->exec_of[src];
    bool src_host = grt_plan_output_in_host_memory(b->s->plan, src, port);
    if (host_addressable(b, dev) || src_host == dst_host) {
      slots[i] = b->nodes[from].out_start + port;
      return b->nodes[from].preset ? NULL : add_edge(b, from, x);
    }
    /* One device, two memories: the producer's output is in device memory
     * and this input wants host memory (a shape, axes or sizes argument,
     * e.g. an int64 Const feeding Reshape on a GPU), or the reverse. The
     * value is copied between the device's memories as across devices
     * (TensorFlow's memory-type copies); reading it where it is not would
     * dereference device memory on the host. */
    copy_source cs = {from, src, port, b->nodes[from].out_start + port, dev, src_host};
    GRT_RETURN_IF_ERROR(crossing(b, &cs, dev, dst_host, &recv));
  } else {
    GRT_RETURN_IF_ERROR(plan_crossing(b, b->exec_of, src, port, dev, dst_host, &recv));
  }
  slots[i] = b->nodes[recv].out_start;
  return add_edge(b, recv, x);
}

/* Kernel x's inputs, control edges and host-memory outputs; its input
 * slots are appended in one block. */
static grt_status* connect_kernel(builder* b, int32_t x) {
  const grt_node* n = &b->g->nodes[b->nodes[x].node];
  const grt_rewritten* rw = b->nodes[x].rw;
  const grt_input* ins = rw ? rw->inputs : n->inputs;
  int32_t n_ins = rw ? rw->n_inputs : n->n_inputs;
  int32_t v = b->nodes[x].node, dev = b->nodes[x].device;
  int32_t* slots = grt_malloc(((size_t)n_ins + 1) * sizeof *slots);
  if (!slots) return OOM();
  grt_status* st = NULL;
  for (int32_t i = 0; !st && i < n_ins; i++)
    st = connect_input(b, x, i, ins[i].src, ins[i].port, slots);
  for (int32_t i = 0; !st && i < n->n_controls; i++) {
    int32_t src = n->controls[i].src;
    int32_t recv;
    if (b->exec_of[src] == kRemote) {
      st = remote_recv(b, src, -1, dev, false, &recv);
      if (!st) st = add_edge(b, recv, x);
    } else if (b->nodes[b->exec_of[src]].device == dev) {
      st = add_edge(b, b->exec_of[src], x);
    } else {
      st = plan_crossing(b, b->exec_of, src, -1, dev, false, &recv);
      if (!st) st = add_edge(b, recv, x);
    }
  }
  for (int32_t o = 0; o < n->sig.n_outputs && o < 64; o++)
    if (grt_plan_output_in_host_memory(b->s->plan, v, o))
      b->nodes[x].host_outputs |= (uint64_t)1 << o;
  b->nodes[x].in_start = b->in_slots.n;
  b->nodes[x].n_inputs = n_ins;
  for (int32_t i = 0; !st && i < n_ins; i++)
    if (!ivec_push(&b->in_slots, slots[i])) st = OOM();
  grt_free(slots);
  b->nodes[x].run_inline = rw ? cheap(rw->node, rw->kernel) : cheap(n, b->s->kernels[v]);
  const grt_node* kn = rw ? rw->node : n; /* the node the executor runs */
  for (int32_t i = 0; i < n_ins; i++) b->nodes[x].ref_inputs |= kn->sig.input_is_ref[i];
  return st;
}

/* Step 4: edges between kernels; crossing ones through Send/Recv. */
static grt_status* connect_kernels(builder* b) {
  GRT_RETURN_IF_ERROR(copies_init(b));
  preset_constants(b);
  for (int32_t x = 0; x < b->n_kernels; x++) GRT_RETURN_IF_ERROR(connect_kernel(b, x));
  return connect_remote(b);
}

/* Step 5, fetch slots: values come back in host memory, so a fetch from a
 * device whose memory the host cannot read goes through a copy to the host. */
static grt_status* route_fetches(builder* b) {
  grt_executable* e = b->e;
  e->n_fetches = b->nx;
  e->fetch_slots = grt_malloc(((size_t)b->nx + 1) * sizeof *e->fetch_slots);
  if (!e->fetch_slots) return OOM();
  grt_status* st = NULL;
  for (int32_t i = 0; !st && i < b->nx; i++) {
    int32_t fi = fed_index(b, b->fetch_node[i], b->fetch_port[i]);
    int32_t v = b->fetch_node[i], port = b->fetch_port[i], from = b->exec_of[v];
    if (fi >= 0) {
      e->fetch_slots[i] = e->feed_slots[fi];
      continue;
    }
    if (from == kRemote) {
      /* Fetches are gathered to rank 0; elsewhere another task's is NULL. */
      int32_t recv;
      e->fetch_slots[i] = -1;
      if (grt_cluster_rank(b->s->cluster) == 0) {
        st = remote_recv(b, v, port, host_device(b), true, &recv);
        if (!st) e->fetch_slots[i] = b->nodes[recv].out_start;
      }
      continue;
    }
    if (b->s->cluster && grt_cluster_rank(b->s->cluster) != 0 && (st = remote_send(b, v, port, 0)))
      break;
    if (host_addressable(b, b->nodes[from].device)) {
      e->fetch_slots[i] = b->nodes[from].out_start + port;
    } else {
      copy_source cs = {from,
                        v,
                        port,
                        b->nodes[from].out_start + port,
                        b->nodes[from].device,
                        grt_plan_output_in_host_memory(b->s->plan, v, port)};
      int32_t recv;
      st = crossing(b, &cs, host_device(b), true, &recv);
      if (!st) e->fetch_slots[i] = b->nodes[recv].out_start;
    }
  }
  /* The Sends and Recvs (every exec node after the kernels) run inline. */
  for (int32_t x = b->n_kernels; x < b->n_nodes; x++) b->nodes[x].run_inline = true;
  return st;
}

/* Step 6a: devices whose streams run asynchronously: the run waits for them
 * at its end, as TensorFlow's sessions do. */
static grt_status* list_async_devices(builder* b) {
  grt_executable* e = b->e;
  e->async_devices = grt_malloc(((size_t)b->s->n_devices + 1) * sizeof *e->async_devices);
  uint8_t* seen = grt_calloc((size_t)b->s->n_devices + 1, 1);
  if (!e->async_devices || !seen) {
    grt_free(seen);
    return OOM();
  }
  for (int32_t x = 0; x < b->n_nodes; x++) {
    int32_t d = b->nodes[x].device;
    grt_device* dv = b->s->device[d];
    if (seen[d] || !dv) continue;
    seen[d] = 1;
    bool sync = true;
    for (int k = 0; k < GRT_NUM_STREAM_KINDS; k++) sync = sync && dv->streams[k]->synchronous;
    if (!sync) e->async_devices[e->n_async++] = d;
  }
  grt_free(seen);
  return NULL;
}

/* Step 6b: the exec nodes whose value is preset (constants), set once per
 * run instead of run. */
static grt_status* list_presets(builder* b) {
  grt_executable* e = b->e;
  e->presets = grt_malloc(((size_t)b->n_nodes + 1) * sizeof *e->presets);
  if (!e->presets) return OOM();
  for (int32_t x = 0; x < b->n_nodes; x++)
    if (b->nodes[x].preset) e->presets[e->n_presets++] = x;
  return NULL;
}

/* Step 7: hands the exec nodes and input slots to the executable, with
 * successors in CSR form, slot use counts and the initially ready set. */
static grt_status* link_successors(builder* b) {
  grt_executable* e = b->e;
  e->n_nodes = b->n_nodes;
  e->nodes = b->nodes;
  b->nodes = NULL;
  e->n_slots = b->n_slots;
  e->in_slots = b->in_slots.v;
  b->in_slots.v = NULL;
  e->succ = grt_malloc(((size_t)b->edge_from.n + 1) * sizeof *e->succ);
  e->slot_uses = grt_calloc((size_t)e->n_slots + 1, sizeof *e->slot_uses);
  e->initial = grt_malloc(((size_t)e->n_nodes + 1) * sizeof *e->initial);
  e->pending = grt_malloc(((size_t)e->n_nodes + 1) * sizeof *e->pending);
  int32_t* fill = grt_calloc((size_t)e->n_nodes + 1, sizeof *fill);
  if (!e->succ || !e->slot_uses || !e->initial || !e->pending || !fill) {
    grt_free(fill);
    return OOM();
  }
  for (int32_t i = 0; i < b->edge_from.n; i++) fill[b->edge_from.v[i]]++;
  int32_t at = 0;
  for (int32_t x = 0; x < e->n_nodes; x++) {
    e->nodes[x].succ_start = e->nodes[x].succ_end = at;
    at += fill[x];
  }
  for (int32_t i = 0; i < b->edge_from.n; i++)
    e->succ[e->nodes[b->edge_from.v[i]].succ_end++] = b->edge_to.v[i];
  grt_free(fill);
  for (int32_t x = 0; x < e->n_nodes; x++) {
    const exec_node* n = &e->nodes[x];
    for (int32_t i = 0; i < n->n_inputs; i++) e->slot_uses[e->in_slots[n->in_start + i]]++;
    if (n->pending == 0) e->initial[e->n_initial++] = x;
    e->pending[x] = n->pending;
    if (n->kind == EXEC_SEND && n->remote_peer < 0 && n->n_inputs &&
        !(host_addressable(b, n->device) && host_addressable(b, e->nodes[n->peer].device)))
      e->copies = true;
  }
  for (int32_t i = 0; i < b->nx; i++)
    if (e->fetch_slots[i] >= 0) e->slot_uses[e->fetch_slots[i]]++;
  /* A fed value is the caller's and a constant's the executable's for the
   * whole run: releasing them early frees nothing, so their slots keep
   * them to the end and their readers count nothing (a constant read by
   * every node of a chain was an atomic decrement per node). */
  for (int32_t i = 0; i < e->n_feeds; i++)
    if (e->slot_uses[e->feed_slots[i]] > 0) e->slot_uses[e->feed_slots[i]] = kSlotPinned;
  for (int32_t i = 0; i < e->n_presets; i++) {
    int32_t si = e->nodes[e->presets[i]].out_start;
    if (e->slot_uses[si] > 0) e->slot_uses[si] = kSlotPinned;
  }
  e->n_remote_recvs = b->remote_recvs.n;
  e->remote_recvs = b->remote_recvs.v;
  b->remote_recvs.v = NULL;
  return NULL;
}

/* The executable for `sig`, one step after another (each above). */
static grt_status* build(builder* b, const grt_run_signature* sig) {
  GRT_RETURN_IF_ERROR(index_signature(b, sig));
  GRT_RETURN_IF_ERROR(prune(b, sig));
  GRT_RETURN_IF_ERROR(add_kernels(b));
  GRT_RETURN_IF_ERROR(cluster_crossings(b));
  GRT_RETURN_IF_ERROR(connect_kernels(b));
  GRT_RETURN_IF_ERROR(route_fetches(b));
  GRT_RETURN_IF_ERROR(list_async_devices(b));
  GRT_RETURN_IF_ERROR(list_presets(b));
  return link_successors(b);
}

/* Frees what the builder holds (what build() handed to the executable is
 * NULL here). */
static void builder_clear(builder* b) {
  grt_free(b->nodes);
  grt_free(b->edge_from.v);
  grt_free(b->edge_to.v);
  grt_free(b->in_slots.v);
  grt_free(b->copies.keys);
  grt_free(b->copies.send);
  grt_free(b->feed_node);
  grt_free(b->feed_port);
  grt_free(b->fetch_node);
  grt_free(b->fetch_port);
  grt_free(b->exec_of);
  grt_free(b->has_feed);
  grt_free(b->touched);
  grt_free(b->crossings);
  grt_free(b->remote_recvs.v);
}

void grt_executable_free(grt_executable* e) {
  if (!e) return;
  grt_free(e->key);
  grt_free(e->nodes);
  grt_free(e->in_slots);
  grt_free(e->succ);
  grt_free(e->slot_uses);
  grt_free(e->pending);
  grt_free(e->feed_slots);
  grt_free(e->fetch_slots);
  grt_free(e->initial);
  grt_free(e->async_devices);
  grt_free(e->presets);
  grt_free(e->groups);
  grt_free(e->group_members);
  grt_free(e->cluster_groups);
  grt_free(e->remote_recvs);
  grt_free(e);
}

grt_status* grt_executable_build(grt_session* s, const grt_run_signature* sig,
                                 grt_executable** out) {
  *out = NULL;
  grt_executable* e = grt_calloc(1, sizeof *e);
  if (!e) return OOM();
  builder b = {0};
  b.s = s;
  b.g = s->graph;
  b.e = e;
  grt_status* st = build(&b, sig);
  /* Every node the run keeps, on any task: a cluster's groups span them. */
  uint8_t* kept = NULL;
  if (!st && s->cluster) {
    kept = grt_calloc((size_t)b.g->n_nodes + 1, 1);
    if (!kept) st = OOM();
    for (int32_t v = 0; kept && v < b.g->n_nodes; v++) kept[v] = b.exec_of[v] != -1;
  }
  if (!st) st = grt_collective_groups_build(s, e, kept);
  grt_free(kept);
  builder_clear(&b);
  if (st) {
    grt_executable_free(e);
    return st;
  }
  *out = e;
  return NULL;
}

grt_status* grt_run_signature_resolve(const grt_graph* g, const grt_feed* feeds, int32_t nf,
                                      const char* const* fetches, int32_t nx,
                                      const char* const* targets, int32_t nt,
                                      grt_run_signature* sig) {
  memset(sig, 0, sizeof *sig);
  sig->feeds = grt_malloc(((size_t)nf + 1) * sizeof *sig->feeds);
  sig->fetches = grt_malloc(((size_t)nx + 1) * sizeof *sig->fetches);
  sig->targets = grt_malloc(((size_t)nt + 1) * sizeof *sig->targets);
  if (!sig->feeds || !sig->fetches || !sig->targets) {
    grt_run_signature_clear(sig);
    return OOM();
  }
  sig->n_feeds = nf;
  sig->n_fetches = nx;
  sig->n_targets = nt;
  grt_status* st = NULL;
  for (int32_t i = 0; !st && i < nf; i++)
    st = parse_tensor_name(g, "feed", feeds[i].name, &sig->feeds[i].node, &sig->feeds[i].port);
  for (int32_t i = 0; !st && i < nx; i++)
    st = parse_tensor_name(g, "fetch", fetches[i], &sig->fetches[i].node, &sig->fetches[i].port);
  for (int32_t i = 0; !st && i < nt; i++) {
    sig->targets[i] = targets[i] ? grt_strmap_get(&g->by_name, targets[i]) : -1;
    if (sig->targets[i] < 0)
      st = GRT_ERROR(NOT_FOUND, "target '%s': the graph has no node of that name",
                     targets[i] ? targets[i] : "(null)");
  }
  if (st) grt_run_signature_clear(sig);
  return st;
}

void grt_run_signature_clear(grt_run_signature* sig) {
  grt_free(sig->feeds);
  grt_free(sig->fetches);
  grt_free(sig->targets);
  memset(sig, 0, sizeof *sig);
}

grt_status* grt_session_executable(grt_session* s, const grt_feed* feeds, int32_t n_feeds,
                                   const char* const* fetches, int32_t n_fetches,
                                   const char* const* targets, int32_t n_targets,
                                   grt_executable** out) {
  *out = NULL;
  char* key = make_key(feeds, n_feeds, fetches, n_fetches, targets, n_targets);
  if (!key) return OOM();
  pthread_mutex_lock(&s->cache_mu);
  for (grt_executable* e = s->cache; e; e = e->next) {
    if (strcmp(e->key, key) == 0) {
      pthread_mutex_unlock(&s->cache_mu);
      grt_free(key);
      *out = e;
      return NULL;
    }
  }
  pthread_mutex_unlock(&s->cache_mu);

  grt_run_signature sig;
  grt_executable* e = NULL;
  grt_status* st = grt_run_signature_resolve(s->graph, feeds, n_feeds, fetches, n_fetches, targets,
                                             n_targets, &sig);
  if (!st) st = grt_executable_build(s, &sig, &e);
  grt_run_signature_clear(&sig);
  if (st) {
    grt_free(key);
    return st;
  }
  e->key = key;
  /* Another thread may have built the same one meanwhile: keep the first. */
  pthread_mutex_lock(&s->cache_mu);
  for (grt_executable* c = s->cache; c; c = c->next) {
    if (strcmp(c->key, key) == 0) {
      pthread_mutex_unlock(&s->cache_mu);
      grt_executable_free(e);
      *out = c;
      return NULL;
    }
  }
  e->next = s->cache;
  s->cache = e;
  pthread_mutex_unlock(&s->cache_mu);
  *out = e;
  return NULL;
}
