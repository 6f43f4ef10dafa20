/* Pass "constant_folding": a node whose inputs are all constants computes
 * the same value on every run; compute it once, now, and make it a Const
 * (TensorFlow grappler's constant folding). ONNX graphs are full of them:
 * every Conv's filter Transpose, every shape subgraph.
 *
 * What folds: a node that is not fixed (stateful, ref, unknown op), not a
 * feed point (Placeholder*), not control flow, has no control inputs, has
 * a CPU kernel (the evaluator runs on the host), whose data inputs are all
 * Consts (without control inputs) or nodes folded here, and whose outputs
 * have a fully known shape of at most grt_opt_fold_max_bytes each. Also a
 * metadata op (Shape, Size, Rank) whose input's shape (rank for Rank) is
 * known, whatever computes that input: its value is computed here, no
 * kernel needed. So ONNX's Shape -> Gather -> Concat -> Reshape chains fold
 * down to a Reshape by a constant.
 *
 * All folds of one pass are one call to the evaluator: a small graph of
 * the Consts and folded nodes, fetching only the frontier (outputs that a
 * node not folded still reads, and folded graph outputs). If that call
 * fails, each frontier output is tried alone and those that fail stay as
 * they are (they would fail at run time too, with the kernel's message).
 *
 * Each frontier output becomes a Const on the folded node's device. A
 * single-output node is replaced whole (the Const takes its name and its
 * control uses); a multi-output node (Split) gets one Const per frontier
 * output and goes when nothing reads it any more. A node whose value was
 * folded into another is marked unsafe to feed: feeding it would no longer
 * change what was computed from it. */
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "base/mem.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ops/node_copy.h"
#include "optimizer/passes.h"

enum {
  NOT_CONST = 0,
  SOURCE = 1, /* a Const: read as it is */
  FOLD = 2,   /* evaluated */
  META = 3,   /* Shape/Size/Rank computed here */
};

/* Ops whose value depends on more than their inputs, or that mark where a
 * run may feed: never folded even with constant inputs. */
static const char* const kNeverFold[] = {
    "Placeholder",   "PlaceholderWithDefault",
    "Switch",        "Merge",
    "Enter",         "Exit",
    "NextIteration", "LoopCond",
    "RefSwitch",     "RefMerge",
    "RefEnter",      "RefExit",
};

typedef struct fold_state {
  grt_opt_ctx* c;
  int32_t n;
  uint8_t* kind;      /* per node: NOT_CONST .. META */
  grt_tensor** value; /* per node and port: slot[i] + port; META values, evaluator results */
  int32_t* slot;      /* per node: first entry in value[] */
  bool* frontier;     /* per slot */
  bool* failed;       /* per node: the evaluator refused it */
} fold_state;

static bool never_fold(const char* op) {
  for (size_t k = 0; k < sizeof kNeverFold / sizeof kNeverFold[0]; k++)
    if (!strcmp(op, kNeverFold[k])) return true;
  return false;
}

static bool small_enough(const fold_state* f, int32_t i) {
  const grt_node* n = grt_opt_node(f->c, i);
  for (int32_t p = 0; p < n->sig.n_outputs; p++) {
    const grt_shape* s = grt_opt_output_shape(f->c, i, p);
    size_t bytes = 0;
    if (!s || !grt_tensor_bytes_for(grt_opt_output_type(f->c, i, p), s, &bytes)) return false;
    if ((int64_t)bytes > grt_opt_fold_max_bytes(f->c)) return false;
  }
  return true;
}

static bool shape_known(const grt_shape* s) {
  if (!s || s->rank < 0) return false;
  for (int32_t d = 0; d < s->rank; d++)
    if (s->dims[d] < 0) return false;
  return true;
}

/* The value of metadata op i over its input's inferred shape, or NULL
 * when that shape is not known well enough. */
static grt_status* meta_value(fold_state* f, int32_t i, grt_tensor** out) {
  *out = NULL;
  const grt_node* n = grt_opt_node(f->c, i);
  int32_t port = 0;
  int32_t src = grt_opt_input_node(f->c, i, 0, &port);
  const grt_shape* s = src >= 0 ? grt_opt_output_shape(f->c, src, port) : NULL;
  grt_dtype t = grt_opt_output_type(f->c, i, 0);
  if (!s || s->rank < 0 || n->sig.n_outputs != 1 || !grt_dtype_is_integer(t)) return NULL;
  bool is_rank = !strcmp(n->op, "Rank");
  if (!is_rank && !shape_known(s)) return NULL;
  bool is_shape = !strcmp(n->op, "Shape");
  int64_t len = s->rank;
  grt_tensor* v = NULL;
  GRT_RETURN_IF_ERROR(grt_tensor_new(t, is_shape ? 1 : 0, &len, &v));
  if (is_shape) {
    for (int32_t d = 0; d < s->rank; d++) grt_dtype_store_int(t, grt_tensor_data(v), d, s->dims[d]);
  } else if (is_rank) {
    grt_dtype_store_int(t, grt_tensor_data(v), 0, s->rank);
  } else {
    int64_t size = 1;
    for (int32_t d = 0; d < s->rank; d++) size *= s->dims[d];
    grt_dtype_store_int(t, grt_tensor_data(v), 0, size);
  }
  *out = v;
  return NULL;
}

static bool foldable(const fold_state* f, int32_t i) {
  grt_opt_ctx* c = f->c;
  const grt_node* n = grt_opt_node(c, i);
  if (grt_opt_is_dead(c, i) || grt_opt_is_fixed(c, i) || n->n_controls > 0) return false;
  if (n->n_inputs == 0 || n->sig.n_outputs == 0 || never_fold(n->op)) return false;
  if (!grt_opt_has_kernel("CPU", n->op, NULL, GRT_DTYPE_INVALID)) return false;
  for (int32_t k = 0; k < n->n_inputs; k++) {
    int32_t src = n->inputs[k].src;
    if (src < 0 || f->kind[src] == NOT_CONST || f->failed[src]) return false;
  }
  return small_enough(f, i);
}

/* Classifies every node, to a fixed point (a graph need not list its nodes
 * in order; in order, two sweeps do). */
static grt_status* classify(fold_state* f) {
  grt_opt_ctx* c = f->c;
  for (int32_t i = 0; i < f->n; i++) {
    const grt_node* n = grt_opt_node(c, i);
    if (!grt_opt_is_dead(c, i) && n->n_controls == 0 && grt_opt_const_value(c, i))
      f->kind[i] = SOURCE;
    else if (!grt_opt_is_dead(c, i) && n->def && (n->def->flags & GRT_OP_METADATA) &&
             n->n_controls == 0 && !grt_opt_is_fixed(c, i) && n->n_inputs == 1) {
      GRT_RETURN_IF_ERROR(meta_value(f, i, &f->value[f->slot[i]]));
      if (f->value[f->slot[i]]) f->kind[i] = META;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (int32_t i = 0; i < f->n; i++) {
      if (f->kind[i] != NOT_CONST || !foldable(f, i)) continue;
      f->kind[i] = FOLD;
      changed = true;
    }
  }
  return NULL;
}

static bool is_folded(const fold_state* f, int32_t i) {
  return f->kind[i] == FOLD || f->kind[i] == META;
}

/* Marks the outputs of folded nodes that something not folded reads (or
 * that nothing reads: a graph output). Returns their count. */
static int32_t mark_frontier(fold_state* f) {
  int32_t count = 0;
  for (int32_t i = 0; i < f->n; i++) {
    if (!is_folded(f, i)) continue;
    const grt_node* n = grt_opt_node(f->c, i);
    const grt_opt_use* u = NULL;
    int32_t n_ctl = grt_opt_uses(f->c, i, -1, &u);
    bool sink = n_ctl == 0 && grt_opt_num_data_uses(f->c, i) == 0;
    for (int32_t p = 0; p < n->sig.n_outputs; p++) {
      int32_t nu = grt_opt_uses(f->c, i, p, &u);
      bool out = (sink && n->sig.n_outputs == 1) || (n_ctl > 0 && n->sig.n_outputs == 1);
      for (int32_t k = 0; k < nu && !out; k++) out = !is_folded(f, u[k].node);
      f->frontier[f->slot[i] + p] = out;
      count += out;
    }
  }
  return count;
}

/* Adds to `g` node i and, first, what it reads (Consts and META values as
 * Consts), each once (in_g[]). Iterative: shape chains can be long. */
static grt_status* add_closure(fold_state* f, grt_graph* g, bool* in_g, int32_t root,
                               int32_t* stack) {
  int32_t top = 0;
  stack[top++] = root;
  while (top > 0) {
    int32_t i = stack[top - 1];
    if (in_g[i]) {
      top--;
      continue;
    }
    const grt_node* n = grt_opt_node(f->c, i);
    bool ready = true;
    for (int32_t k = 0; f->kind[i] == FOLD && k < n->n_inputs; k++) {
      int32_t s = n->inputs[k].src;
      if (!in_g[s]) {
        stack[top++] = s;
        ready = false;
      }
    }
    if (!ready) continue;
    top--;
    in_g[i] = true;
    int32_t at = -1;
    if (f->kind[i] == META) {
      GRT_RETURN_IF_ERROR(grt_graph_add_node(g, n->name, "Const", &at));
      grt_tensor* v = f->value[f->slot[i]];
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_type(g, at, "dtype", grt_tensor_dtype(v)));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_tensor(g, at, "value", v));
      continue;
    }
    GRT_RETURN_IF_ERROR(grt_graph_add_node(g, n->name, n->op, &at));
    n = grt_opt_node(f->c, i);
    char spec[600];
    for (int32_t k = 0; k < n->n_inputs; k++) {
      const grt_input* in = &n->inputs[k];
      const char* name = grt_opt_node(f->c, in->src)->name;
      if (in->port == 0)
        snprintf(spec, sizeof spec, "%s", name);
      else
        snprintf(spec, sizeof spec, "%s:%d", name, (int)in->port);
      GRT_RETURN_IF_ERROR(grt_graph_add_input(g, at, spec));
    }
    for (int32_t k = 0; k < n->n_attrs; k++) {
      grt_attr_value v;
      GRT_RETURN_IF_ERROR(grt_attr_value_copy(g->arena, &n->attrs[k].value, &v));
      GRT_RETURN_IF_ERROR(grt_graph_set_attr_value(g, at, n->attrs[k].name, &v));
    }
  }
  return NULL;
}

/* Evaluates the frontier outputs of the FOLD nodes listed in which[0..m)
 * (node, port pairs) in one evaluator call; results land in f->value. */
static grt_status* evaluate(fold_state* f, const int32_t* which, int32_t m) {
  const grt_opt_env* env = grt_opt_env_of(f->c);
  grt_graph* g = NULL;
  bool* in_g = grt_calloc((size_t)f->n + 1, sizeof *in_g);
  /* Each node pushes its inputs at most once: edges + roots bound it. */
  size_t edges = (size_t)m + 1;
  for (int32_t i = 0; i < f->n; i++) edges += (size_t)grt_opt_node(f->c, i)->n_inputs + 1;
  int32_t* stack = grt_calloc(edges, sizeof *stack);
  char** names = grt_calloc((size_t)m + 1, sizeof *names);
  grt_tensor** out = grt_calloc((size_t)m + 1, sizeof *out);
  grt_status* st = in_g && stack && names && out ? grt_graph_new(&g)
                                                 : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t k = 0; k < m && !st; k++) {
    int32_t i = which[2 * k], p = which[2 * k + 1];
    st = add_closure(f, g, in_g, i, stack);
    size_t len = strlen(grt_opt_node(f->c, i)->name) + 16;
    names[k] = st ? NULL : grt_malloc(len);
    if (!st && !names[k]) st = GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
    if (!st) snprintf(names[k], len, "%s:%d", grt_opt_node(f->c, i)->name, (int)p);
  }
  if (!st) st = grt_graph_validate(g);
  if (!st) st = env->eval(env->eval_ctx, g, (const char* const*)names, m, out);
  for (int32_t k = 0; k < m; k++) {
    int32_t i = which[2 * k], p = which[2 * k + 1];
    if (!st) {
      grt_tensor_free(f->value[f->slot[i] + p]);
      f->value[f->slot[i] + p] = out[k];
    }
    if (names) grt_free(names[k]);
  }
  grt_graph_free(g);
  grt_free(in_g);
  grt_free(stack);
  grt_free(names);
  grt_free(out);
  return st;
}

/* Puts the frontier values in: Consts for what folded nodes computed. */
static grt_status* replace(fold_state* f, int32_t* n_folded) {
  grt_opt_ctx* c = f->c;
  *n_folded = 0;
  for (int32_t i = 0; i < f->n; i++) {
    if (!is_folded(f, i)) continue;
    const grt_node* n = grt_opt_node(c, i);
    int32_t n_out = n->sig.n_outputs;
    bool fed_on = false; /* some folded node read it: feeding it is unsafe */
    for (int32_t p = 0; p < n_out; p++) {
      const grt_opt_use* u = NULL;
      int32_t nu = grt_opt_uses(c, i, p, &u);
      for (int32_t k = 0; k < nu; k++) fed_on |= is_folded(f, u[k].node);
    }
    /* A Const taking i's name keeps this mark (compaction). */
    if (fed_on) grt_opt_mark_feed_unsafe(c, i);
    for (int32_t p = 0; p < n_out; p++) {
      grt_tensor* v = f->value[f->slot[i] + p];
      if (!f->frontier[f->slot[i] + p] || !v) continue;
      grt_dtype t = grt_tensor_dtype(v);
      if (!grt_opt_has_kernel(grt_opt_device_type(c, i), "Const", "dtype", t)) continue;
      int32_t k = -1;
      GRT_RETURN_IF_ERROR(grt_opt_add_const(c, i, "folded", v, &k));
      /* The Const's value is node i's, so feeding it means what feeding i
       * meant (derived) unless other folds read i. */
      GRT_RETURN_IF_ERROR(grt_opt_replace_uses(c, i, p, k, 0, n_out == 1, true));
      if (n_out == 1) {
        grt_opt_kill(c, i);
        grt_opt_take_name(c, k, i);
      }
      (*n_folded)++;
    }
  }
  /* Consts whose value went into a fold, kept for other readers. */
  for (int32_t i = 0; i < f->n; i++) {
    if (f->kind[i] != SOURCE) continue;
    const grt_opt_use* u = NULL;
    int32_t nu = grt_opt_uses(c, i, 0, &u);
    for (int32_t k = 0; k < nu; k++)
      if (is_folded(f, u[k].node)) {
        grt_opt_mark_feed_unsafe(c, i);
        break;
      }
  }
  return NULL;
}

static grt_status* run(fold_state* f) {
  GRT_RETURN_IF_ERROR(classify(f));
  int32_t n_frontier = mark_frontier(f);
  if (n_frontier == 0) return NULL;
  int32_t* which = grt_calloc((size_t)n_frontier * 2 + 2, sizeof *which);
  if (!which) return GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  int32_t m = 0;
  for (int32_t i = 0; i < f->n; i++) {
    if (f->kind[i] != FOLD) continue;
    for (int32_t p = 0; p < grt_opt_node(f->c, i)->sig.n_outputs; p++) {
      if (!f->frontier[f->slot[i] + p]) continue;
      which[2 * m] = i;
      which[2 * m + 1] = p;
      m++;
    }
  }
  int32_t n_failed = 0;
  char first[160] = "";
  grt_status* st = m > 0 ? evaluate(f, which, m) : NULL;
  if (st) {
    /* One of them fails (a kernel's error, a bad shape): try each alone
     * and leave those that fail as they are. */
    grt_status_free(st);
    st = NULL;
    for (int32_t k = 0; k < m; k++) {
      grt_status* one = evaluate(f, which + 2 * k, 1);
      if (!one) continue;
      int32_t i = which[2 * k];
      if (n_failed++ == 0)
        snprintf(first, sizeof first, "%s (%s): %s", grt_opt_node(f->c, i)->name,
                 grt_opt_node(f->c, i)->op, grt_status_message(one));
      f->failed[i] = true;
      grt_status_free(one);
    }
  }
  grt_free(which);
  int32_t n_folded = 0;
  GRT_RETURN_IF_ERROR(replace(f, &n_folded));
  int32_t n_fold = 0, n_meta = 0;
  for (int32_t i = 0; i < f->n; i++) {
    n_fold += f->kind[i] == FOLD && !f->failed[i];
    n_meta += f->kind[i] == META;
  }
  grt_opt_count(f->c, n_folded);
  if (n_failed > 0)
    grt_opt_detail(f->c, "%d nodes evaluated, %d shapes known; %d not folded, first %s", n_fold,
                   n_meta, n_failed, first);
  else
    grt_opt_detail(f->c, "%d nodes evaluated, %d shapes known", n_fold, n_meta);
  return NULL;
}

grt_status* grt_opt_pass_constant_folding(grt_opt_ctx* c) {
  const grt_opt_env* env = grt_opt_env_of(c);
  if (!env || !env->eval) {
    grt_opt_detail(c, "no evaluator");
    return NULL;
  }
  fold_state f = {.c = c, .n = grt_opt_num_nodes(c)};
  f.kind = grt_calloc((size_t)f.n + 1, sizeof *f.kind);
  f.slot = grt_calloc((size_t)f.n + 1, sizeof *f.slot);
  f.failed = grt_calloc((size_t)f.n + 1, sizeof *f.failed);
  int32_t slots = 0;
  for (int32_t i = 0; f.slot && i < f.n; i++) {
    f.slot[i] = slots;
    slots += grt_opt_node(c, i)->sig.n_outputs;
  }
  f.value = grt_calloc((size_t)slots + 1, sizeof *f.value);
  f.frontier = grt_calloc((size_t)slots + 1, sizeof *f.frontier);
  grt_status* st = f.kind && f.slot && f.failed && f.value && f.frontier
                       ? run(&f)
                       : GRT_ERROR(RESOURCE_EXHAUSTED, "out of memory");
  for (int32_t s = 0; f.value && s < slots; s++) grt_tensor_free(f.value[s]);
  grt_free(f.kind);
  grt_free(f.slot);
  grt_free(f.failed);
  grt_free(f.value);
  grt_free(f.frontier);
  return st;
}
