#include "api/result_graph.h"

#include <stdlib.h>
#include <string.h>

/* A reference to value `name` defined by the scope at path `where` (NULL:
 * omitted, or no scope defines it). Keys are what "values" uses: the name at
 * top level, the body value's key inside a subgraph (which may carry a "~2"
 * suffix); a body value with no entry in "values" (unknown type, a body
 * initializer) is referenced by path + name. */
static void write_ref(OsiJson *j, const OsiGraphView *v, const char *where, const char *name) {
  if (!name[0]) {
    osi_json_raw(j, "null");
    return;
  }
  if (!where) {
    osi_json_string(j, name);
    return;
  }
  if (!where[0]) {
    const OsiValueEntry *e = osi_context_get_model_name(v->root, name);
    if (v->compact && e) osi_json_int(j, e->order);
    else osi_json_string(j, name);
    return;
  }
  size_t lp = strlen(where), ln = strlen(name);
  char small[256];
  char *key = lp + ln < sizeof small ? small : malloc(lp + ln + 1);
  if (!key) {
    j->failed = 1;
    return;
  }
  memcpy(key, where, lp);
  memcpy(key + lp, name, ln + 1);
  const OsiValueEntry *e = osi_value_table_get(&v->run->sub_index, key);
  const char *final = e && v->sub_keys[e->producer] ? v->sub_keys[e->producer] : key;
  osi_json_string(j, final);
  if (key != small) free(key);
}

/* Refs of node n: its inputs resolved by where[at...] (where NULL: a
 * top-level node), its outputs defined in `path`. Advances *at past the
 * inputs. */
static void write_refs(OsiJson *j, const OsiGraphView *v, const OsiNode *n, const char *path,
                       const char *const *where, size_t *at, int counted) {
  if (counted) {
    osi_json_int(j, n->n_inputs);
    osi_json_raw(j, n->n_inputs ? "," : "");
  } else {
    osi_json_raw(j, ",\"inputs\":[");
  }
  for (int i = 0; i < n->n_inputs; i++) {
    if (i) osi_json_char(j, ',');
    if (where) write_ref(j, v, where[(*at)++], n->inputs[i]);
    else write_ref(j, v, n->inputs[i][0] ? "" : NULL, n->inputs[i]);
  }
  if (counted) {
    osi_json_char(j, ',');
    osi_json_int(j, n->n_outputs);
    osi_json_raw(j, n->n_outputs ? "," : "");
  } else {
    osi_json_raw(j, "],\"outputs\":[");
  }
  for (int i = 0; i < n->n_outputs; i++) {
    if (i) osi_json_char(j, ',');
    write_ref(j, v, path, n->outputs[i]);
  }
  if (!counted) osi_json_raw(j, "]");
}

void osi_json_node_io(OsiJson *j, const OsiGraphView *v, int k) {
  write_refs(j, v, &v->graph->nodes[k], "", NULL, NULL, 0);
}

static void push_word(OsiWords *w, int32_t v) {
  if (w->failed) return;
  if (w->count == w->cap) {
    if (w->fixed) {
      w->failed = 1;
      return;
    }
    size_t cap = w->cap ? 2 * w->cap : 1024;
    int32_t *items = realloc(w->items, cap * sizeof *items);
    if (!items) {
      w->failed = 1;
      return;
    }
    w->items = items;
    w->cap = cap;
  }
  w->items[w->count++] = v;
}

/* The packed ref of top-level name `name`, `e` being what inference resolved
 * it to (NULL: look it up). */
static int32_t pack_ref(const OsiGraphView *v, const OsiValueEntry *e, const char *name,
                        OsiJson *ref_keys, int *n_ref_keys) {
  if (e) return e->order; /* (before reading the name: a cache miss on big graphs) */
  if (!name[0]) return -1;
  if ((e = osi_context_get_model_name(v->root, name))) return e->order;
  osi_json_raw(ref_keys, *n_ref_keys ? "," : "");
  osi_json_string(ref_keys, name);
  return -2 - (*n_ref_keys)++;
}

void osi_pack_node_io(const OsiGraphView *v, OsiWords *io, OsiJson *ref_keys, int *n_ref_keys) {
  const OsiRun *run = v->run;
  if (io->fixed && run->top_io) {
    /* The packed result's words, sized beforehand: written in place, one
     * room check a node instead of one a word. */
    for (int k = 0; k < v->graph->n_nodes && !io->failed; k++) {
      const OsiNode *n = &v->graph->nodes[k];
      const OsiValueEntry *const *top = run->top_io + run->top_io_at[k];
      size_t need = 2 + (size_t)n->n_inputs + (size_t)n->n_outputs;
      if (io->cap - io->count < need) {
        io->failed = 1;
        break;
      }
      int32_t *w = io->items + io->count;
      *w++ = n->n_inputs;
      for (int i = 0; i < n->n_inputs; i++) *w++ = pack_ref(v, top[i], n->inputs[i], ref_keys, n_ref_keys);
      *w++ = n->n_outputs;
      for (int i = 0; i < n->n_outputs; i++)
        *w++ = pack_ref(v, top[n->n_inputs + i], n->outputs[i], ref_keys, n_ref_keys);
      io->count += need;
    }
    return;
  }
  for (int k = 0; k < v->graph->n_nodes; k++) {
    const OsiNode *n = &v->graph->nodes[k];
    const OsiValueEntry *const *top = run->top_io ? run->top_io + run->top_io_at[k] : NULL;
    push_word(io, n->n_inputs);
    for (int i = 0; i < n->n_inputs; i++)
      push_word(io, pack_ref(v, top ? top[i] : NULL, n->inputs[i], ref_keys, n_ref_keys));
    push_word(io, n->n_outputs);
    for (int i = 0; i < n->n_outputs; i++)
      push_word(io, pack_ref(v, top ? top[n->n_inputs + i] : NULL, n->outputs[i], ref_keys, n_ref_keys));
  }
}

/* [ref,...] of a graph's formal inputs (defined in `path`, skipping those an
 * initializer of the top-level graph shadows) or outputs (where[]). */
static void write_inputs(OsiJson *j, const OsiGraphView *v, const OsiGraph *g, const char *path) {
  osi_json_raw(j, "[");
  for (int i = 0, first = 1; i < g->n_inputs; i++) {
    if (!path[0]) {
      const OsiValueEntry *e = osi_context_get_model_name(v->root, g->inputs[i].name);
      if (!e || e->is_initializer) continue;
    }
    osi_json_raw(j, first ? "" : ",");
    first = 0;
    write_ref(j, v, path, g->inputs[i].name);
  }
  osi_json_raw(j, "]");
}

static void write_outputs(OsiJson *j, const OsiGraphView *v, const OsiGraph *g,
                          const char *const *where) {
  osi_json_raw(j, "[");
  for (int i = 0; i < g->n_outputs; i++) {
    if (i) osi_json_char(j, ',');
    write_ref(j, v, where ? where[i] : (g->outputs[i].name[0] ? "" : NULL), g->outputs[i].name);
  }
  osi_json_raw(j, "]");
}

void osi_json_graph_io(OsiJson *j, const OsiGraphView *v) {
  osi_json_raw(j, ",\"inputs\":");
  write_inputs(j, v, v->graph, "");
  osi_json_raw(j, ",\"outputs\":");
  write_outputs(j, v, v->graph, NULL);
}

static void write_scope_compact(OsiJson *j, const OsiGraphView *v, const OsiScopeLog *s,
                                int (*intern_op)(void *, const OsiNode *), void *user) {
  const OsiGraph *g = &s->graph;
  size_t at = 0;
  osi_json_string(j, s->path);
  osi_json_char(j, ',');
  osi_json_string(j, s->caller);
  osi_json_char(j, ',');
  osi_json_int(j, s->node_index);
  osi_json_char(j, ',');
  osi_json_string(j, s->tag);
  osi_json_char(j, ',');
  write_inputs(j, v, g, s->path);
  osi_json_char(j, ',');
  size_t outs_at = 0;
  for (int k = 0; k < g->n_nodes; k++) outs_at += (size_t)g->nodes[k].n_inputs;
  write_outputs(j, v, g, s->where + outs_at);
  osi_json_raw(j, ",\"");
  for (int k = 0; k < g->n_nodes; k++) {
    if (k) osi_json_raw(j, "\\u0000");
    osi_json_string_body(j, g->nodes[k].name);
  }
  osi_json_raw(j, "\",[");
  for (int k = 0; k < g->n_nodes; k++) {
    if (k) osi_json_char(j, ',');
    osi_json_int(j, intern_op(user, &g->nodes[k]));
  }
  osi_json_raw(j, "],[");
  for (int k = 0; k < g->n_nodes; k++) {
    if (k) osi_json_char(j, ',');
    write_refs(j, v, &g->nodes[k], s->path, s->where, &at, 1);
  }
  osi_json_raw(j, "]");
}

static void write_scope_full(OsiJson *j, const OsiGraphView *v, const OsiScopeLog *s) {
  const OsiGraph *g = &s->graph;
  size_t at = 0;
  osi_json_string(j, s->path);
  osi_json_raw(j, ":{\"parent\":");
  osi_json_string(j, s->caller);
  osi_json_raw(j, ",\"node\":");
  osi_json_int(j, s->node_index);
  osi_json_raw(j, ",\"attribute\":");
  osi_json_string(j, s->tag);
  osi_json_raw(j, ",\"inputs\":");
  write_inputs(j, v, g, s->path);
  osi_json_raw(j, ",\"outputs\":");
  size_t outs_at = 0;
  for (int k = 0; k < g->n_nodes; k++) outs_at += (size_t)g->nodes[k].n_inputs;
  write_outputs(j, v, g, s->where + outs_at);
  osi_json_raw(j, ",\"nodes\":[");
  for (int k = 0; k < g->n_nodes; k++) {
    const OsiNode *n = &g->nodes[k];
    osi_json_raw(j, k ? ",{\"name\":" : "{\"name\":");
    osi_json_string(j, n->name);
    osi_json_raw(j, ",\"opType\":");
    osi_json_string(j, n->op_type);
    osi_json_raw(j, ",\"domain\":");
    osi_json_string(j, n->domain);
    write_refs(j, v, n, s->path, s->where, &at, 0);
    osi_json_raw(j, "}");
  }
  osi_json_raw(j, "]}");
}

void osi_json_subgraphs(OsiJson *j, const OsiGraphView *v, int (*intern_op)(void *, const OsiNode *),
                        void *user) {
  const OsiRun *run = v->run;
  osi_json_raw(j, v->compact ? ",\"subgraphs\":[" : ",\"subgraphs\":{");
  for (int i = 0; i < run->n_scopes; i++) {
    if (i) osi_json_char(j, ',');
    if (v->compact) write_scope_compact(j, v, &run->scopes[i], intern_op, user);
    else write_scope_full(j, v, &run->scopes[i]);
  }
  osi_json_raw(j, v->compact ? "]" : "}");
}
