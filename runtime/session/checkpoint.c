/* grt_session_save_variables / grt_session_restore_variables: the session's
 * variables (kernel state of the graph's variable nodes, a grt_var each)
 * to and from a checkpoint file. A variable on a device the host cannot
 * address is copied through that device's streams. */
#include "grt/checkpoint.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cancel.h"
#include "base/mem.h"
#include "base/shape.h"
#include "base/status.h"
#include "base/tensor.h"
#include "graph_format/checkpoint_format.h"
#include "graph_format/formats.h"
#include "grt/tensor_io.h"
#include "ops/op_def.h"
#include "runtime/session/session_internal.h"

/* The graph's variable nodes, their storage and their devices. */
typedef struct {
  int32_t n;
  int32_t* node;
  grt_var** var;
  grt_device** dev;
} var_list;

static void var_list_clear(var_list* l) {
  grt_free(l->node);
  grt_free(l->var);
  grt_free(l->dev);
  memset(l, 0, sizeof *l);
}

static grt_status* var_list_make(grt_session* s, var_list* l) {
  memset(l, 0, sizeof *l);
  int32_t nn = s->graph->n_nodes;
  l->node = grt_calloc((size_t)nn + 1, sizeof *l->node);
  l->var = grt_calloc((size_t)nn + 1, sizeof *l->var);
  l->dev = grt_calloc((size_t)nn + 1, sizeof *l->dev);
  if (!l->node || !l->var || !l->dev) {
    var_list_clear(l);
    return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory listing the variables");
  }
  for (int32_t i = 0; i < nn; i++) {
    const grt_node* n = &s->graph->nodes[i];
    if (!n->def || !(n->def->flags & GRT_OP_VARIABLE) || !s->states[i]) continue;
    l->node[l->n] = i;
    l->var[l->n] = s->states[i];
    l->dev[l->n] = s->device[grt_plan_node_device(s->plan, i)];
    l->n++;
  }
  return NULL;
}

/* Copies n bytes between host memory and a device's memory on the stream
 * of that direction, and waits for it. */
static grt_status* copy_sync(grt_device* dev, grt_stream_kind kind, void* dst, const void* src,
                             size_t n) {
  if (dev->host_addressable) {
    if (n) memcpy(dst, src, n);
    return NULL;
  }
  grt_stream* s = dev->streams[kind];
  GRT_RETURN_IF_ERROR(grt_stream_memcpy(s, dst, src, n));
  return grt_stream_sync(s);
}

/* ---- deadlines and cancellation ---------------------------------------- */

/* A save or restore stops, as a run does, once grt_session_cancel is called
 * or its options' timeout passes: checked between variables and between the
 * reading, checking, copying and writing phases, so the wait is bounded by
 * the largest single tensor's work. Nothing is assigned and no file
 * replaced once it has stopped. */
static grt_status* stopped(const grt_cancel_token* t, const char* what, const char* path,
                           const grt_run_options* opts) {
  grt_code c = grt_cancel_check(t);
  if (c == GRT_OK) return NULL;
  if (c == GRT_DEADLINE_EXCEEDED)
    return grt_status_new(c, "deadline exceeded: %s %s passed its timeout of %lld ms", what, path,
                          (long long)opts->timeout_ms);
  return grt_status_new(c, "%s %s cancelled (grt_session_cancel)", what, path);
}

static void token_for(grt_session* s, const grt_run_options* opts, grt_cancel_token* t) {
  grt_cancel_token_init(t, &s->cancel_epoch, opts ? opts->timeout_ms : 0);
}

/* ---- saving ---------------------------------------------------------- */

typedef struct {
  grt_ckpt_var* vars;
  int32_t n;
  const grt_cancel_token* token;
  const char* path;
  const grt_run_options* opts;
} save_ctx;

/* A stop seen after the entries are written fails the write: the atomic
 * writer then drops the new file and the old checkpoint stays. */
static grt_status* write_checkpoint(void* ctx, FILE* f) {
  save_ctx* c = ctx;
  GRT_RETURN_IF_ERROR(grt_ckpt_write(f, c->vars, c->n));
  return stopped(c->token, "saving variables to", c->path, c->opts);
}

/* The variable's current value in host memory (a new reference). */
static grt_status* host_value(grt_var* v, grt_device* dev, grt_tensor** out) {
  *out = NULL;
  pthread_mutex_lock(&v->mu);
  grt_tensor* t = grt_tensor_ref(v->value);
  pthread_mutex_unlock(&v->mu);
  if (!t)
    return GRT_ERROR(FAILED_PRECONDITION,
                     "variable '%s' has no value yet (run its initializer before saving)", v->name);
  if (dev->host_addressable) {
    *out = t;
    return NULL;
  }
  grt_tensor* h = NULL;
  grt_status* st = grt_tensor_new(t->dtype, t->shape.rank, t->shape.dims, &h);
  if (!st)
    st = copy_sync(dev, GRT_STREAM_DEVICE_TO_HOST, grt_tensor_data(h), grt_tensor_data(t),
                   grt_tensor_byte_size(t));
  grt_tensor_free(t);
  if (st) {
    grt_tensor_free(h);
    return grt_status_prefix(st, "variable '%s'", v->name);
  }
  *out = h;
  return NULL;
}

/* ---- saving in a cluster: by the chief --------------------------------- */

/* Every rank holds only its own task's variables (var_list_make finds no
 * state for the others'). The chief writes the file: it receives every
 * other task's variables, which each sends in graph order on the
 * checkpoints' tag (MPI keeps that order), and the others return once
 * their values have left. A save is collective: every rank calls it, as
 * every rank runs the same steps. Bounded by the options' deadline. */
static grt_status* pause_or_stop(const grt_cancel_token* token, const char* path,
                                 const grt_run_options* opts, int32_t* idle) {
  GRT_RETURN_IF_ERROR(stopped(token, "saving variables to", path, opts));
  if (++*idle > 64) {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* A non-chief rank: its variables to the chief, then wait for them to leave. */
static grt_status* send_to_chief(grt_session* s, const var_list* l, const char* path,
                                 const grt_run_options* opts, const grt_cancel_token* token) {
  grt_cluster* c = s->cluster;
  int32_t chief = grt_cluster_chief(c);
  grt_wire_send** sends = grt_calloc((size_t)l->n + 1, sizeof *sends);
  grt_status* st = sends ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory saving variables");
  int32_t n = 0;
  for (int32_t i = 0; !st && i < l->n; i++, n++) {
    grt_tensor* t = NULL;
    st = host_value(l->var[i], l->dev[i], &t);
    if (!st) st = grt_wire_send_start(c, chief, grt_cluster_checkpoint_tag(c), t, &sends[i]);
    grt_tensor_free(t);
  }
  int32_t left = n;
  for (int32_t idle = 0; !st && left > 0;) {
    for (int32_t i = 0; !st && i < n; i++) {
      bool done = false;
      if (sends[i]) st = grt_wire_send_poll(c, sends[i], &done);
      if (done) {
        sends[i] = NULL;
        left--;
        idle = 0;
      }
    }
    if (!st && left > 0) st = pause_or_stop(token, path, opts, &idle);
  }
  for (int32_t i = 0; i < n; i++) grt_wire_send_abandon(c, sends ? sends[i] : NULL);
  grt_free(sends);
  if (st && grt_status_code(st) != GRT_DEADLINE_EXCEEDED && grt_status_code(st) != GRT_CANCELLED)
    return grt_status_prefix(st, "sending variables to the chief %s for the checkpoint %s",
                             grt_cluster_task_name(c, chief), path);
  return st;
}

/* The chief: every variable of the graph, its own and the others'
 * (received), in graph order, into vars[0..*n). The tensors are new
 * references. */
static grt_status* gather_at_chief(grt_session* s, grt_ckpt_var* vars, int32_t* n, const char* path,
                                   const grt_run_options* opts, const grt_cancel_token* token) {
  grt_cluster* c = s->cluster;
  const grt_graph* g = s->graph;
  grt_wire_recv** recvs = grt_calloc((size_t)g->n_nodes + 1, sizeof *recvs);
  int32_t* owner = grt_calloc((size_t)g->n_nodes + 1, sizeof *owner);
  grt_status* st =
      recvs && owner ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory saving variables");
  int32_t left = 0;
  *n = 0;
  for (int32_t v = 0; !st && v < g->n_nodes; v++) {
    const grt_node* node = &g->nodes[v];
    if (!node->def || !(node->def->flags & GRT_OP_VARIABLE)) continue;
    int32_t i = (*n)++;
    vars[i].name = node->name;
    owner[i] = grt_cluster_device_rank(c, s->devices, grt_plan_node_device(s->plan, v));
    if (owner[i] == grt_cluster_rank(c)) {
      grt_tensor* t = NULL;
      st = s->states[v]
               ? NULL
               : GRT_ERROR(INTERNAL, "variable '%s' of this task has no state", node->name);
      if (!st) st = host_value(s->states[v], s->device[grt_plan_node_device(s->plan, v)], &t);
      vars[i].value = t;
    } else {
      left++;
    }
  }
  /* One receive at a time per peer: a message is a header then chunks on
   * one tag, so a second header receive posted early would take the first
   * value's chunk. busy[rank]: that rank's receive in flight. */
  uint8_t* busy = st ? NULL : grt_calloc((size_t)grt_cluster_size(c), 1);
  if (!st && !busy) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory saving variables");
  for (int32_t idle = 0; !st && left > 0;) {
    for (int32_t i = 0; !st && i < *n; i++) {
      bool done = false;
      grt_tensor* t = NULL;
      if (owner[i] == grt_cluster_rank(c) || vars[i].value) continue;
      if (!recvs[i] && !busy[owner[i]]) {
        st = grt_wire_recv_start(c, owner[i], grt_cluster_checkpoint_tag(c), &recvs[i]);
        busy[owner[i]] = 1;
      }
      if (recvs[i]) st = grt_wire_recv_poll(c, recvs[i], grt_host_allocator(), &done, &t);
      if (st) /* a failed poll keeps the receive: cancelled below */
        st = grt_status_prefix(st, "variable '%s' from %s", vars[i].name,
                               grt_cluster_task_name(c, owner[i]));
      if (done) {
        recvs[i] = NULL;
        busy[owner[i]] = 0;
        vars[i].value = t;
        left--;
        idle = 0;
      }
    }
    if (!st && left > 0) st = pause_or_stop(token, path, opts, &idle);
  }
  for (int32_t i = 0; recvs && i < *n; i++) grt_wire_recv_cancel(c, recvs[i]);
  grt_free(busy);
  grt_free(recvs);
  grt_free(owner);
  return st;
}

static grt_status* save_in_cluster(grt_session* s, const char* path, const grt_run_options* opts,
                                   const grt_cancel_token* token) {
  if (grt_cluster_rank(s->cluster) != grt_cluster_chief(s->cluster)) {
    var_list l;
    GRT_RETURN_IF_ERROR(var_list_make(s, &l));
    grt_status* st = send_to_chief(s, &l, path, opts, token);
    var_list_clear(&l);
    return st;
  }
  grt_ckpt_var* vars = grt_calloc((size_t)s->graph->n_nodes + 1, sizeof *vars);
  if (!vars) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory saving variables");
  int32_t n = 0;
  grt_status* st = gather_at_chief(s, vars, &n, path, opts, token);
  save_ctx ctx = {vars, n, token, path, opts};
  if (!st) st = grt_write_file_atomic(path, write_checkpoint, &ctx);
  for (int32_t i = 0; i < n; i++) grt_tensor_free((grt_tensor*)vars[i].value);
  grt_free(vars);
  if (st && grt_status_code(st) != GRT_DEADLINE_EXCEEDED && grt_status_code(st) != GRT_CANCELLED)
    return grt_status_prefix(st, "saving a checkpoint to %s", path);
  return st;
}

grt_status* grt_session_save_variables(grt_session* s, const char* path) {
  return grt_session_save_variables_with_options(s, path, NULL);
}

grt_status* grt_session_save_variables_with_options(grt_session* s, const char* path,
                                                    const grt_run_options* opts) {
  if (!s || !path) return GRT_ERROR(INVALID_ARGUMENT, "NULL session or path");
  grt_cancel_token token;
  token_for(s, opts, &token);
  if (s->cluster) return save_in_cluster(s, path, opts, &token);
  var_list l;
  GRT_RETURN_IF_ERROR(var_list_make(s, &l));
  grt_ckpt_var* vars = grt_calloc((size_t)l.n + 1, sizeof *vars);
  grt_status* st = vars ? NULL : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory saving variables");
  for (int32_t i = 0; !st && i < l.n; i++) {
    vars[i].name = s->graph->nodes[l.node[i]].name;
    grt_tensor* t = NULL;
    st = stopped(&token, "saving variables to", path, opts);
    if (!st) st = host_value(l.var[i], l.dev[i], &t);
    vars[i].value = t;
  }
  if (!st) st = stopped(&token, "saving variables to", path, opts);
  save_ctx ctx = {vars, l.n, &token, path, opts};
  if (!st) st = grt_write_file_atomic(path, write_checkpoint, &ctx);
  for (int32_t i = 0; vars && i < l.n; i++) grt_tensor_free((grt_tensor*)vars[i].value);
  grt_free(vars);
  var_list_clear(&l);
  if (st && grt_status_code(st) != GRT_DEADLINE_EXCEEDED && grt_status_code(st) != GRT_CANCELLED)
    return grt_status_prefix(st, "saving a checkpoint to %s", path);
  return st; /* a stop names the path already */
}

/* ---- restoring ------------------------------------------------------- */

/* The checkpoint's entry for variable node `n` (e[0..ne) sorted by name),
 * checked against it. */
static grt_status* match(const char* path, const grt_node* n, const grt_ckpt_entry* e, int32_t ne,
                         const grt_ckpt_entry** out) {
  const grt_ckpt_entry* x = grt_ckpt_find(e, ne, n->name, strlen(n->name));
  if (!x)
    return GRT_ERROR(INVALID_ARGUMENT, "variable '%s' is not in the checkpoint %s", n->name, path);
  grt_dtype want = n->sig.output_types[0];
  if (x->dtype != want)
    return GRT_ERROR(INVALID_ARGUMENT,
                     "variable '%s' is %s in the graph but %s in the checkpoint %s", n->name,
                     grt_dtype_name(want), grt_dtype_name(x->dtype), path);
  if (!grt_shape_compatible(&x->shape, &n->sig.output_shapes[0])) {
    char a[GRT_SHAPE_STR_MAX], b[GRT_SHAPE_STR_MAX];
    return GRT_ERROR(INVALID_ARGUMENT,
                     "variable '%s' has shape %s in the graph but %s in the checkpoint %s", n->name,
                     grt_shape_str(&n->sig.output_shapes[0], a, sizeof a),
                     grt_shape_str(&x->shape, b, sizeof b), path);
  }
  *out = x;
  return NULL;
}

/* A new tensor on the variable's device holding the entry's value. */
static grt_status* device_value(grt_device* dev, const grt_ckpt_entry* x, const char* name,
                                grt_tensor** out) {
  grt_status* st = grt_tensor_new_packed(dev->memory[GRT_MEMORY_DEVICE], x->dtype, &x->shape, out);
  if (!st) st = copy_sync(dev, GRT_STREAM_HOST_TO_DEVICE, grt_tensor_data(*out), x->data, x->size);
  if (st) {
    grt_tensor_free(*out);
    *out = NULL;
    return grt_status_prefix(st, "variable '%s'", name);
  }
  return NULL;
}

grt_status* grt_session_restore_variables(grt_session* s, const char* path) {
  return grt_session_restore_variables_with_options(s, path, NULL);
}

grt_status* grt_session_restore_variables_with_options(grt_session* s, const char* path,
                                                       const grt_run_options* opts) {
  if (!s || !path) return GRT_ERROR(INVALID_ARGUMENT, "NULL session or path");
  grt_cancel_token token;
  token_for(s, opts, &token);
  const char* what = "restoring variables from";
  char* bytes = NULL;
  size_t len = 0;
  grt_ckpt_entry* entries = NULL;
  int32_t ne = 0;
  var_list l = {0};
  grt_tensor** fresh = NULL;
  grt_status* st = grt_read_file(path, &bytes, &len);
  if (!st) st = stopped(&token, what, path, opts);
  if (!st) st = grt_ckpt_parse(path, bytes, len, &entries, &ne);
  if (!st) st = stopped(&token, what, path, opts);
  if (!st) grt_ckpt_sort_by_name(entries, ne);
  if (!st) st = var_list_make(s, &l);
  if (!st) {
    fresh = grt_calloc((size_t)l.n + 1, sizeof *fresh);
    if (!fresh) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory restoring variables");
  }
  /* Everything is checked and copied before any variable changes. */
  for (int32_t i = 0; !st && i < l.n; i++) {
    const grt_node* n = &s->graph->nodes[l.node[i]];
    const grt_ckpt_entry* x = NULL;
    st = match(path, n, entries, ne, &x);
    if (!st) st = device_value(l.dev[i], x, n->name, &fresh[i]);
    if (!st) st = stopped(&token, what, path, opts);
  }
  for (int32_t i = 0; !st && i < l.n; i++) {
    grt_var_write_begin(l.var[i]);
    pthread_mutex_lock(&l.var[i]->mu);
    grt_tensor* old = l.var[i]->value;
    l.var[i]->value = fresh[i];
    fresh[i] = NULL;
    pthread_mutex_unlock(&l.var[i]->mu);
    grt_var_write_end(l.var[i]);
    grt_tensor_free(old);
  }
  for (int32_t i = 0; fresh && i < l.n; i++) grt_tensor_free(fresh[i]);
  grt_free(fresh);
  var_list_clear(&l);
  grt_free(entries);
  grt_free(bytes);
  if (!st) return NULL;
  if (grt_status_code(st) == GRT_DEADLINE_EXCEEDED || grt_status_code(st) == GRT_CANCELLED)
    return st; /* names the path already */
  /* The reader's and match's messages name the file; the rest (memory,
   * a device's copy) do not, so they get it here. */
  if (strstr(grt_status_message(st), path)) return grt_status_prefix(st, "restoring variables");
  return grt_status_prefix(st, "restoring variables from %s", path);
}
