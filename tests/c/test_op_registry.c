/*
 * The operator tables: each strictly sorted (lookup is a binary search),
 * every row well-formed, and every op used by the ONNX backend node tests
 * (directory given as argv[1]) has a row.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "decode/decode.h"
#include "ops/op_registry.h"
#include "test.h"

static void test_tables_sorted(void) {
  int n;
  const OsiOpDomain *d = osi_op_domains(&n);
  CHECK(n >= 1);
  for (int k = 0; k < n; k++) {
    CHECK(d[k].n_ops > 0);
    for (int i = 0; i < d[k].n_ops; i++) {
      const OsiOpEntry *e = &d[k].ops[i];
      CHECK(e->fn != NULL);
      CHECK(e->since >= 1 && e->since <= d[k].max_opset);
      if (i > 0 && strcmp(d[k].ops[i - 1].name, e->name) >= 0) {
        CHECK(!"table not strictly sorted");
        fprintf(stderr, "  domain '%s': '%s' before '%s'\n", d[k].domain, d[k].ops[i - 1].name, e->name);
      }
      CHECK(osi_op_lookup(&d[k], e->name) == e);
    }
  }
  CHECK(osi_op_lookup(osi_op_domain(""), "NoSuchOp") == NULL);
  CHECK(osi_op_lookup(osi_op_domain("no.such.domain"), "Relu") == NULL);
  CHECK(osi_op_lookup(osi_op_domain(""), "relu") == NULL); /* op types are case-sensitive */
}

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
  *len = b && n > 0 ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  return b;
}

/* Every (domain, op) in the backend node models resolves. */
static void test_backend_ops_covered(const char *dir) {
  DIR *dh = opendir(dir);
  if (!dh) { /* a coverage check that read nothing must not pass */
    fprintf(stderr, "test_op_registry: the backend node tests are missing: %s (set OSI_SHARED_DIR)\n", dir);
    CHECK(0);
    return;
  }
  int models = 0, missing = 0;
  char seen[64 * 1024] = "";
  for (struct dirent *de; (de = readdir(dh));) {
    if (de->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, de->d_name);
    size_t len;
    unsigned char *bytes = read_file(path, &len);
    if (!bytes) continue;
    OsiArena *arena = osi_arena_new();
    OsiExprStore *exprs = osi_expr_store_new();
    OsiDecodeError err;
    const OsiModel *m = osi_decode_pbc(bytes, len, arena, exprs, &err);
    CHECK(m != NULL);
    models++;
    for (int i = 0; m && i < m->graph->n_nodes; i++) {
      const OsiNode *node = &m->graph->nodes[i];
      if (osi_op_lookup(osi_op_domain(node->domain), node->op_type)) continue;
      char key[256];
      snprintf(key, sizeof key, "|%s:%s|", node->domain, node->op_type);
      if (strstr(seen, key)) continue;
      if (strlen(seen) + strlen(key) < sizeof seen) strcat(seen, key);
      fprintf(stderr, "  no shape rule for %s:%s (first seen in %s)\n",
              node->domain[0] ? node->domain : "ai.onnx", node->op_type, de->d_name);
      missing++;
    }
    osi_expr_store_delete(exprs);
    osi_arena_delete(arena);
    free(bytes);
  }
  closedir(dh);
  printf("%d backend models scanned, %d ops without a shape rule\n", models, missing);
  CHECK_INT(missing, 0);
}

int main(int argc, char **argv) {
  test_tables_sorted();
  char dflt[4096];
  test_backend_ops_covered(argc > 1 ? argv[1] : test_shared_path("onnx-backend/node", dflt, sizeof dflt));
  TEST_MAIN_END();
}
