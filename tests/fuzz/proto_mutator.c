/*
 * A structural mutator for fuzz_model (libFuzzer's LLVMFuzzerCustomMutator):
 * it reads the input as protobuf wire format, generically (a
 * length-delimited field whose content parses as fields is taken for a
 * message), changes the structure, and writes it back with the lengths
 * recomputed. The changes are those protobuf allows and writers never make,
 * where decoders have been seen to differ:
 *   - a field duplicated (a non-repeated one is then merged),
 *   - a message split into two occurrences of its field,
 *   - fields reordered, deleted, or copied into another message,
 *   - an unknown field inserted (any wire type),
 *   - a key's wire type changed,
 *   - a key, a length or a varint value written in more bytes (zero
 *     padding, up to 11: valid up to 5 for keys and lengths, 10 for values),
 *   - the content of a leaf field mutated by libFuzzer's own mutator.
 * One in four calls, and whenever the input does not parse, it leaves the
 * whole input to LLVMFuzzerMutate instead. Only linked into the libFuzzer
 * binary (tests/fuzz/CMakeLists.txt); replay does not need it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Section - Parsed form */

typedef struct Msg Msg;

typedef struct Field {
  uint64_t key;          /* field number << 3 | wire type */
  int key_bytes;         /* bytes to write the key in (at least its minimal encoding) */
  uint64_t value;        /* varint value (wire 0) */
  int value_bytes;       /* bytes for the varint value / the length (wire 2) */
  const uint8_t *data;   /* wire 1, 5, 2 (when not a message): the raw content */
  size_t len;
  uint8_t *owned;        /* data when the mutator made it (freed at the end) */
  Msg *sub;              /* wire 2 parsed as a message */
} Field;

struct Msg {
  Field *f;
  size_t n, cap;
};

typedef struct Ctx {
  uint64_t rng;
  Msg **msgs;            /* every message, the root first */
  size_t n_msgs, cap_msgs;
  Field **leaves;        /* fields with raw content */
  size_t n_leaves, cap_leaves;
  size_t budget;         /* fields left to parse */
} Ctx;

static uint64_t rnd(Ctx *c) {
  uint64_t x = c->rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return c->rng = x;
}

static size_t below(Ctx *c, size_t n) { return n ? (size_t)(rnd(c) % n) : 0; }

static int push_ptr(void ***v, size_t *n, size_t *cap, void *p) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 64;
    void **nv = realloc(*v, nc * sizeof *nv);
    if (!nv) return 0;
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = p;
  return 1;
}

static Field *msg_add(Msg *m) {
  if (m->n == m->cap) {
    size_t nc = m->cap ? m->cap * 2 : 8;
    Field *nf = realloc(m->f, nc * sizeof *nf);
    if (!nf) return NULL;
    m->f = nf;
    m->cap = nc;
  }
  Field *f = &m->f[m->n++];
  memset(f, 0, sizeof *f);
  return f;
}

static void msg_free(Msg *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) {
    msg_free(m->f[i].sub);
    free(m->f[i].owned);
  }
  free(m->f);
  free(m);
}

static size_t read_varint(const uint8_t *p, size_t len, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < len && i < 10; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *out = v;
      return i + 1;
    }
  }
  return 0;
}

static int varint_size(uint64_t v) {
  int n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

/* Fields of p[0..len) into a new Msg (NULL when they do not parse). */
static Msg *parse(Ctx *c, const uint8_t *p, size_t len, int depth) {
  if (depth > 40) return NULL;
  Msg *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  for (size_t at = 0; at < len;) {
    if (!c->budget--) goto fail;
    uint64_t key, v;
    size_t used = read_varint(p + at, len - at, &key);
    if (!used || (key >> 3) == 0) goto fail;
    Field *f = msg_add(m);
    if (!f) goto fail;
    f->key = key;
    f->key_bytes = (int)used;
    at += used;
    switch (key & 7) {
    case 0:
      if (!(used = read_varint(p + at, len - at, &v))) goto fail;
      f->value = v;
      f->value_bytes = (int)used;
      at += used;
      break;
    case 1:
    case 5: {
      size_t size = (key & 7) == 1 ? 8 : 4;
      if (len - at < size) goto fail;
      f->data = p + at;
      f->len = size;
      at += size;
      break;
    }
    case 2:
      if (!(used = read_varint(p + at, len - at, &v)) || v > len - at - used) goto fail;
      f->value_bytes = (int)used;
      at += used;
      f->data = p + at;
      f->len = (size_t)v;
      at += (size_t)v;
      break;
    default: goto fail;
    }
  }
  /* Then the length-delimited fields that parse as messages. */
  for (size_t i = 0; i < m->n; i++) {
    Field *f = &m->f[i];
    if ((f->key & 7) != 2 || f->len == 0) continue;
    size_t budget = c->budget;
    f->sub = parse(c, f->data, f->len, depth + 1);
    if (!f->sub) c->budget = budget;
  }
  return m;
fail:
  msg_free(m);
  return NULL;
}

/* Every message and every raw-content field, for picking one at random. */
static int index_tree(Ctx *c, Msg *m) {
  if (!push_ptr((void ***)&c->msgs, &c->n_msgs, &c->cap_msgs, m)) return 0;
  for (size_t i = 0; i < m->n; i++) {
    Field *f = &m->f[i];
    if (f->sub) {
      if (!index_tree(c, f->sub)) return 0;
    } else if (f->data && f->len) {
      if (!push_ptr((void ***)&c->leaves, &c->n_leaves, &c->cap_leaves, f)) return 0;
    }
  }
  return 1;
}

/* Section - Writing */

typedef struct Out {
  uint8_t *p;
  size_t n, max;
  int over;
} Out;

static void put(Out *o, const void *d, size_t n) {
  if (o->over || n > o->max - o->n) {
    o->over = 1;
    return;
  }
  if (n) memcpy(o->p + o->n, d, n);
  o->n += n;
}

/* v in `bytes` bytes (more than its minimal encoding: zero padding). */
static void put_varint(Out *o, uint64_t v, int bytes) {
  int min = varint_size(v);
  if (bytes < min) bytes = min;
  uint8_t tmp[16];
  for (int i = 0; i < bytes && i < 16; i++) {
    tmp[i] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (i + 1 < bytes) tmp[i] |= 0x80;
  }
  put(o, tmp, (size_t)(bytes < 16 ? bytes : 16));
}

static size_t msg_size(const Msg *m);

static size_t field_content(const Field *f) { return f->sub ? msg_size(f->sub) : f->len; }

static size_t field_size(const Field *f) {
  int kb = varint_size(f->key);
  size_t n = (size_t)(f->key_bytes > kb ? f->key_bytes : kb);
  switch (f->key & 7) {
  case 0: {
    int vb = varint_size(f->value);
    return n + (size_t)(f->value_bytes > vb ? f->value_bytes : vb);
  }
  case 2: {
    size_t content = field_content(f);
    int lb = varint_size(content);
    return n + (size_t)(f->value_bytes > lb ? f->value_bytes : lb) + content;
  }
  default: return n + f->len;
  }
}

static size_t msg_size(const Msg *m) {
  size_t n = 0;
  for (size_t i = 0; i < m->n; i++) n += field_size(&m->f[i]);
  return n;
}

static void write_msg(Out *o, const Msg *m) {
  for (size_t i = 0; i < m->n && !o->over; i++) {
    const Field *f = &m->f[i];
    put_varint(o, f->key, f->key_bytes);
    switch (f->key & 7) {
    case 0: put_varint(o, f->value, f->value_bytes); break;
    case 2:
      put_varint(o, field_content(f), f->value_bytes);
      if (f->sub) write_msg(o, f->sub);
      else put(o, f->data, f->len);
      break;
    default: put(o, f->data, f->len); break;
    }
  }
}

/* Section - Mutations */

/* A deep copy of f (sub-messages copied, raw content shared or copied). */
static int copy_field(Field *dst, const Field *src);

static Msg *copy_msg(const Msg *m) {
  Msg *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  for (size_t i = 0; i < m->n; i++) {
    Field *f = msg_add(c);
    if (!f || !copy_field(f, &m->f[i])) {
      msg_free(c);
      return NULL;
    }
  }
  return c;
}

static int copy_field(Field *dst, const Field *src) {
  *dst = *src;
  dst->owned = NULL;
  dst->sub = NULL;
  if (src->owned) {
    if (!(dst->owned = malloc(src->len ? src->len : 1))) return 0;
    if (src->len) memcpy(dst->owned, src->data, src->len); /* an empty field may have no data */
    dst->data = dst->owned;
  }
  if (src->sub && !(dst->sub = copy_msg(src->sub))) return 0;
  return 1;
}

/* Inserts a copy of `f` at position `at` of m. */
static int insert_copy(Msg *m, size_t at, const Field *f) {
  Field tmp;
  if (!copy_field(&tmp, f)) return 0;
  if (!msg_add(m)) {
    msg_free(tmp.sub);
    free(tmp.owned);
    return 0;
  }
  memmove(&m->f[at + 1], &m->f[at], (m->n - 1 - at) * sizeof *m->f);
  m->f[at] = tmp;
  return 1;
}

static void remove_field(Msg *m, size_t i) {
  msg_free(m->f[i].sub);
  free(m->f[i].owned);
  memmove(&m->f[i], &m->f[i + 1], (m->n - i - 1) * sizeof *m->f);
  m->n--;
}

/* Field numbers onnx.proto uses somewhere, so that duplicates and inserted
 * fields often hit known fields. */
static const uint32_t KNOWN[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 25};

static int mutate_tree(Ctx *c) {
  Msg *m = c->msgs[below(c, c->n_msgs)];
  switch (below(c, 9)) {
  case 0: /* duplicate a field, next to it or anywhere */
    if (!m->n) return 0;
    {
      size_t i = below(c, m->n);
      return insert_copy(m, rnd(c) & 1 ? i + 1 : below(c, m->n + 1), &m->f[i]);
    }
  case 1: { /* split a message field in two occurrences */
    size_t cand[64], k = 0;
    for (size_t i = 0; i < m->n && k < 64; i++)
      if (m->f[i].sub && m->f[i].sub->n >= 1) cand[k++] = i;
    if (!k) return 0;
    size_t i = cand[below(c, k)];
    if (!insert_copy(m, i + 1, &m->f[i])) return 0;
    Msg *a = m->f[i].sub, *b = m->f[i + 1].sub;
    size_t cut = below(c, a->n + 1);
    while (a->n > cut) remove_field(a, a->n - 1); /* a: fields [0, cut) */
    for (size_t j = 0; j < cut; j++) remove_field(b, 0); /* b: fields [cut, n) */
    return 1;
  }
  case 2: /* swap two fields */
    if (m->n < 2) return 0;
    {
      size_t i = below(c, m->n), j = below(c, m->n);
      Field t = m->f[i];
      m->f[i] = m->f[j];
      m->f[j] = t;
      return 1;
    }
  case 3: /* delete a field */
    if (!m->n) return 0;
    remove_field(m, below(c, m->n));
    return 1;
  case 4: { /* copy a field of another message into this one */
    Msg *src = c->msgs[below(c, c->n_msgs)];
    if (!src->n) return 0;
    return insert_copy(m, below(c, m->n + 1), &src->f[below(c, src->n)]);
  }
  case 5: { /* an unknown (or known) field of any wire type */
    Field f;
    memset(&f, 0, sizeof f);
    uint32_t num = rnd(c) & 1 ? KNOWN[below(c, sizeof KNOWN / sizeof *KNOWN)] : 16 + (uint32_t)below(c, 2000);
    static const int wires[] = {0, 1, 2, 5};
    int w = wires[below(c, 4)];
    f.key = (uint64_t)num << 3 | (uint64_t)w;
    f.value = rnd(c) >> below(c, 64);
    if (w != 0) {
      f.len = w == 1 ? 8 : w == 5 ? 4 : below(c, 12);
      if (!(f.owned = malloc(f.len ? f.len : 1))) return 0;
      for (size_t i = 0; i < f.len; i++) f.owned[i] = (uint8_t)rnd(c);
      f.data = f.owned;
    }
    if (!msg_add(m)) {
      free(f.owned);
      return 0;
    }
    size_t at = below(c, m->n);
    memmove(&m->f[at + 1], &m->f[at], (m->n - 1 - at) * sizeof *m->f);
    m->f[at] = f;
    return 1;
  }
  case 6: { /* change a wire type: the content stays what it was */
    if (!m->n) return 0;
    Field *f = &m->f[below(c, m->n)];
    static const int wires[] = {0, 1, 2, 3, 4, 5};
    int w = wires[below(c, 6)];
    if (w == (int)(f->key & 7)) return 0;
    /* keep something writable: raw content for 1/2/5, a value for 0 */
    if (w == 1 || w == 5) {
      size_t size = w == 1 ? 8 : 4;
      uint8_t *raw = calloc(1, size);
      if (!raw) return 0;
      if (f->data) memcpy(raw, f->data, f->len < size ? f->len : size);
      msg_free(f->sub);
      f->sub = NULL;
      free(f->owned);
      f->owned = raw;
      f->data = raw;
      f->len = size;
    } else if (w == 2 && (f->key & 7) != 2) {
      f->data = NULL;
      f->len = 0;
    }
    f->key = (f->key & ~(uint64_t)7) | (uint64_t)w;
    return 1;
  }
  case 7: { /* a longer (or the minimal) varint encoding */
    if (!m->n) return 0;
    Field *f = &m->f[below(c, m->n)];
    int bytes = below(c, 4) == 0 ? 0 : 1 + (int)below(c, 11);
    if ((f->key & 7) == 0 || (f->key & 7) == 2) {
      if (rnd(c) & 1) f->value_bytes = bytes;
      else f->key_bytes = bytes;
    } else {
      f->key_bytes = bytes;
    }
    return 1;
  }
  default: { /* libFuzzer's mutator on one leaf's content */
    if (!c->n_leaves) return 0;
    Field *f = c->leaves[below(c, c->n_leaves)];
    if ((f->key & 7) != 2) return 0;
    size_t cap = f->len * 2 + 16;
    uint8_t *buf = malloc(cap);
    if (!buf) return 0;
    if (f->len) memcpy(buf, f->data, f->len);
    size_t n = LLVMFuzzerMutate(buf, f->len, cap);
    free(f->owned);
    f->owned = buf;
    f->data = buf;
    f->len = n;
    return 1;
  }
  }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  Ctx c;
  memset(&c, 0, sizeof c);
  c.rng = 0x9E3779B97F4A7C15ull ^ seed;
  rnd(&c);
  c.budget = 200000;
  if (below(&c, 4) == 0 || size == 0) return LLVMFuzzerMutate(data, size, max_size);
  Msg *root = parse(&c, data, size, 0);
  size_t out = 0;
  int done = 0;
  if (root) {
    /* the index is rebuilt for each change: a change moves and frees fields */
    for (int k = 1 + (int)below(&c, 3); k > 0; k--) {
      c.n_msgs = c.n_leaves = 0;
      if (!index_tree(&c, root)) break;
      done |= mutate_tree(&c);
    }
    if (done) {
      uint8_t *tmp = malloc(max_size ? max_size : 1);
      if (tmp) {
        Out o = {tmp, 0, max_size, 0};
        write_msg(&o, root);
        if (!o.over) {
          memcpy(data, tmp, o.n);
          out = o.n;
        } else {
          done = 0;
        }
        free(tmp);
      } else {
        done = 0;
      }
    }
  }
  msg_free(root);
  free(c.msgs);
  free(c.leaves);
  return done ? out : LLVMFuzzerMutate(data, size, max_size);
}
