/* libFuzzer target over the whole CPU path: parse -> validate -> plan -> JIT
 * -> run, checked byte for byte against the reference interpreter.
 *
 * Input: a header line, then one IXFUN text per line (the pipeline language
 * or the Futhark format of ixj_ixfun_parse), the destination first:
 *
 *     copy|fill|cat ELEM_SIZE [AXIS] [FLAGS]
 *     DST
 *     SRC...            copy: one, cat: 1..4, fill: none
 *
 * A line "@" stands for a row-major array of the shape the other operand
 * needs (copy only), so a mutated view has a partner of its shape. FLAGS are
 * letters: 'p' runs a prepared kernel (kernel.h) instead of ixj_copy etc.,
 * 'u' places every buffer one element off 64-byte alignment, 'r' runs it a
 * second time on the same context (a memory hit, the fast path), 's' runs it
 * on a context that streams every output (its last-level cache one byte:
 * streaming stores, staged transpose tiles).
 *
 * Every operand lives in its own mmap'd region between PROT_NONE guard
 * pages, its buffer ending at the last accessible byte (and starting after
 * a canary zone when misaligned); sources are read-only while the kernel
 * runs. The JIT and the reference run on equal copies of the destination,
 * pre-filled with a pattern: their statuses must agree, the whole regions
 * must be equal afterwards, and every byte outside the destination's
 * footprint (computed point by point here, independently of both) must
 * still hold the pattern. IXJ_ERR_BACKEND and IXJ_ERR_INTERNAL are bugs.
 *
 * Productive by construction: at most 4096 points and 64 KiB per operand
 * and 1 KiB of input, one context shared across inputs (a signature seen
 * before is a memory hit), rebuilt after 512 compiles so that the JIT's
 * memory stays bounded over a long run. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ixjit/ixjit.h"
#include "ixjit/kernel.h"

#define CHECK(c)                                                      \
  do {                                                                \
    if (!(c)) {                                                       \
      fprintf(stderr, "fuzz_pipeline: check failed: %s (line %d)\n", #c, __LINE__); \
      abort();                                                        \
    }                                                                 \
  } while (0)

enum { MAX_INPUT = 1024, MAX_POINTS = 4096, MAX_BYTES = 64 * 1024, MAX_SRCS = 4, PATTERN = 0xA5 };

/* ---- guarded buffers ---------------------------------------------------- */

typedef struct guarded {
  unsigned char *map;    /* guard page, body pages, guard page */
  size_t map_bytes, body_bytes;
  unsigned char *body;   /* the accessible pages */
  unsigned char *data;   /* the buffer: ends at body + body_bytes unless misaligned */
  size_t size;
} guarded;

static size_t page_size(void) {
  static size_t p;
  if (!p) p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

/* A buffer of `size` bytes in [body, body + body_bytes): its last byte is the
 * last accessible one when aligned to 64 (size rounded), else it starts one
 * element past a 64-byte boundary. */
static bool guarded_make(guarded *g, size_t size, size_t elem, bool misaligned) {
  size_t p = page_size(), need = size + 128;
  g->body_bytes = (need + p - 1) / p * p;
  g->map_bytes = g->body_bytes + 2 * p;
  g->map = mmap(NULL, g->map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g->map == MAP_FAILED) return false;
  g->body = g->map + p;
  CHECK(mprotect(g->body, g->body_bytes, PROT_READ | PROT_WRITE) == 0);
  memset(g->body, PATTERN, g->body_bytes);
  uintptr_t end = (uintptr_t)(g->body + g->body_bytes);
  uintptr_t start = (end - size) & ~(uintptr_t)63;
  if (misaligned) start = (start - 64) + elem;
  if (start + size > end) start -= 64;
  g->data = (unsigned char *)start;
  g->size = size;
  return true;
}

static void guarded_free(guarded *g) {
  if (g->map && g->map != MAP_FAILED) munmap(g->map, g->map_bytes);
  g->map = NULL;
}

static void guarded_protect(guarded *g, bool read_only) {
  CHECK(mprotect(g->body, g->body_bytes, read_only ? PROT_READ : PROT_READ | PROT_WRITE) == 0);
}

/* ---- the input ------------------------------------------------------------ */

typedef struct request {
  ixj_op_kind op;
  size_t elem;
  int axis;
  bool prepared, misaligned, repeat, streamed;
  int num_lines;
  char *lines[1 + MAX_SRCS];
} request;

static bool parse_uint(char **s, long *v) {
  char *end;
  while (**s == ' ') (*s)++;
  if (**s < '0' || **s > '9') return false;
  *v = strtol(*s, &end, 10);
  *s = end;
  return *v >= 0 && *v < 64;
}

/* text is modified in place (lines split at '\n'). */
static bool parse_request(char *text, request *r) {
  memset(r, 0, sizeof *r);
  char *nl = strchr(text, '\n');
  if (!nl) return false;
  *nl = '\0';
  char *h = text;
  long v;
  if (!strncmp(h, "copy", 4)) r->op = IXJ_OP_COPY, h += 4;
  else if (!strncmp(h, "fill", 4)) r->op = IXJ_OP_FILL, h += 4;
  else if (!strncmp(h, "cat", 3)) r->op = IXJ_OP_CAT, h += 3;
  else return false;
  if (!parse_uint(&h, &v)) return false;
  r->elem = (size_t)v; /* invalid sizes are the library's to refuse */
  if (r->op == IXJ_OP_CAT) {
    if (!parse_uint(&h, &v)) return false;
    r->axis = (int)v;
  }
  for (; *h; h++) {
    if (*h == 'p') r->prepared = true;
    else if (*h == 'u') r->misaligned = true;
    else if (*h == 'r') r->repeat = true;
    else if (*h == 's') r->streamed = true;
  }
  for (char *line = nl + 1; line && r->num_lines < 1 + MAX_SRCS;) {
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    r->lines[r->num_lines++] = line;
    line = next;
  }
  int want = r->op == IXJ_OP_COPY ? 2 : r->op == IXJ_OP_FILL ? 1 : 0;
  return r->num_lines >= 1 && (want == 0 ? r->num_lines >= 2 : r->num_lines == want);
}

/* ---- the context ---------------------------------------------------------- */

static ixj_context *contexts[2]; /* [streamed] */

static ixj_context *shared_context(bool streamed) {
  ixj_context **ctx = &contexts[streamed];
  if (*ctx) {
    ixj_cache_stats s;
    ixj_context_cache_stats(*ctx, &s);
    if (s.compiles < 512) return *ctx;
    ixj_context_destroy(*ctx);
    *ctx = NULL;
  }
  ixj_context_options o = {.num_threads = 1, .disk_cache = -1, .last_level_cache = streamed ? 1 : 0};
  CHECK(ixj_context_create(&o, ctx, NULL) == IXJ_OK);
  return *ctx;
}

/* ---- one operation --------------------------------------------------------- */

typedef struct operand {
  ixj_ixfun *f;
  guarded g;
} operand;

static bool small_enough(const ixj_ixfun *f, size_t elem, size_t *bytes) {
  if (ixj_ixfun_num_points(f) > MAX_POINTS) return false;
  size_t e = elem >= 1 && elem <= 16 ? elem : 16;
  if (ixj_ixfun_required_bytes(f, e, bytes, NULL) != IXJ_OK) return false;
  return *bytes <= MAX_BYTES;
}

/* Which bytes of the destination's buffer some point writes (1 per byte). */
static void footprint(const ixj_ixfun *f, size_t elem, size_t size, unsigned char *mark) {
  int rank = ixj_ixfun_rank(f);
  int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, n = ixj_ixfun_num_points(f);
  ixj_ixfun_shape(f, shape);
  memset(mark, 0, size);
  for (int64_t k = 0; k < n; k++) {
    int64_t off;
    CHECK(ixj_ixfun_index(f, rank, idx, &off, NULL) == IXJ_OK);
    CHECK(off >= 0 && (uint64_t)(off + 1) * elem <= size);
    memset(mark + off * (int64_t)elem, 1, elem);
    for (int d = rank - 1; d >= 0 && ++idx[d] == shape[d]; d--) idx[d] = 0;
  }
}

static ixj_status run_jit(const request *r, ixj_operand *dst, int n, ixj_operand *srcs, const void *value,
                          ixj_error *err) {
  ixj_context *c = shared_context(r->streamed);
  if (!r->prepared) {
    if (r->op == IXJ_OP_COPY) return ixj_copy(c, dst, srcs, r->elem, NULL, err);
    if (r->op == IXJ_OP_FILL) return ixj_fill(c, dst, value, r->elem, NULL, err);
    return ixj_cat(c, dst, r->axis, n, srcs, r->elem, NULL, err);
  }
  const ixj_ixfun *fs[MAX_SRCS];
  ixj_buffer bufs[MAX_SRCS];
  for (int k = 0; k < n; k++) fs[k] = srcs[k].ixfun, bufs[k] = (ixj_buffer){srcs[k].data, srcs[k].size_bytes};
  ixj_kernel *k = NULL;
  ixj_status st = r->op == IXJ_OP_COPY   ? ixj_prepare_copy(c, dst->ixfun, fs[0], r->elem, 0, &k, err)
                  : r->op == IXJ_OP_FILL ? ixj_prepare_fill(c, dst->ixfun, r->elem, 0, &k, err)
                                         : ixj_prepare_cat(c, dst->ixfun, r->axis, n, fs, r->elem, 0, &k, err);
  CHECK((st == IXJ_OK) == (k != NULL));
  if (st == IXJ_OK)
    st = ixj_kernel_run(k, (ixj_buffer){dst->data, dst->size_bytes}, r->op == IXJ_OP_FILL ? 0 : n,
                        r->op == IXJ_OP_FILL ? NULL : bufs, r->op == IXJ_OP_FILL ? value : NULL, err);
  ixj_kernel_release(k);
  return st;
}

static void run_case(const request *r, operand *ops, int n_srcs) {
  size_t elem = r->elem, bytes[1 + MAX_SRCS];
  for (int k = 0; k <= n_srcs; k++)
    if (!small_enough(ops[k].f, elem, &bytes[k])) return;
  size_t e = elem >= 1 && elem <= 16 ? elem : 1;
  /* the destination twice (JIT, reference), then the sources */
  guarded ref = {0};
  for (int k = 0; k <= n_srcs; k++)
    if (!guarded_make(&ops[k].g, bytes[k], e, r->misaligned)) goto out;
  if (!guarded_make(&ref, bytes[0], e, r->misaligned)) goto out;
  uint64_t seed = 0x9E3779B97F4A7C15u * (uint64_t)(n_srcs + 1) + elem;
  for (int k = 1; k <= n_srcs; k++) {
    for (size_t b = 0; b < bytes[k]; b++) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      ops[k].g.data[b] = (unsigned char)(seed >> 56);
    }
    guarded_protect(&ops[k].g, true);
  }
  unsigned char value[16];
  for (int b = 0; b < 16; b++) value[b] = (unsigned char)(0x11 * (b + 1));

  ixj_operand jd = {ops[0].g.data, bytes[0], ops[0].f}, rd = {ref.data, bytes[0], ops[0].f}, srcs[MAX_SRCS];
  for (int k = 0; k < n_srcs; k++) srcs[k] = (ixj_operand){ops[1 + k].g.data, bytes[1 + k], ops[1 + k].f};
  ixj_error jerr, rerr;
  ixj_status js = run_jit(r, &jd, n_srcs, srcs, value, &jerr);
  ixj_status rs = r->op == IXJ_OP_COPY   ? ixj_reference_copy(&rd, srcs, elem, &rerr)
                  : r->op == IXJ_OP_FILL ? ixj_reference_fill(&rd, value, elem, &rerr)
                                         : ixj_reference_cat(&rd, r->axis, n_srcs, srcs, elem, &rerr);
  if (js == IXJ_ERR_BACKEND || js == IXJ_ERR_INTERNAL || js != rs) {
    fprintf(stderr, "fuzz_pipeline: jit %d (%s), reference %d (%s)\n", js, js ? jerr.message : "",
            rs, rs ? rerr.message : "");
    abort();
  }
  if (getenv("FUZZ_PIPELINE_VERBOSE")) /* for corpus work: what each input reached */
    fprintf(stderr, "fuzz_pipeline: op %d elem %zu: status %d%s%s\n", (int)r->op, elem, js, js ? ": " : "",
            js ? jerr.message : "");
  if (js == IXJ_OK && r->repeat) {
    memset(ops[0].g.body, PATTERN, ops[0].g.body_bytes);
    js = run_jit(r, &jd, n_srcs, srcs, value, &jerr);
    CHECK(js == IXJ_OK);
  }
  if (js == IXJ_OK && rs == IXJ_OK) {
    /* the whole region: the buffer and the canary zones around it */
    CHECK(memcmp(ops[0].g.body, ref.body, ref.body_bytes) == 0);
    unsigned char *mark = malloc(bytes[0] ? bytes[0] : 1);
    CHECK(mark != NULL);
    footprint(ops[0].f, elem, bytes[0], mark);
    for (size_t b = 0; b < bytes[0]; b++) CHECK(mark[b] || ops[0].g.data[b] == PATTERN);
    free(mark);
    for (unsigned char *p = ops[0].g.body; p < ops[0].g.data; p++) CHECK(*p == PATTERN);
    for (unsigned char *p = ops[0].g.data + bytes[0]; p < ops[0].g.body + ops[0].g.body_bytes; p++)
      CHECK(*p == PATTERN);
  } else if (js != IXJ_OK) {
    /* on any error nothing is written */
    for (size_t b = 0; b < ops[0].g.body_bytes; b++) CHECK(ops[0].g.body[b] == PATTERN);
  }
out:
  guarded_free(&ref);
  for (int k = 0; k <= n_srcs; k++) guarded_free(&ops[k].g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return 0;
  char text[MAX_INPUT + 1];
  memcpy(text, data, size);
  text[size] = '\0';
  request r;
  if (!parse_request(text, &r)) return 0;
  operand ops[1 + MAX_SRCS];
  memset(ops, 0, sizeof ops);
  int n_srcs = r.num_lines - 1, at = -1;
  bool ok = true;
  for (int k = 0; k < r.num_lines && ok; k++) {
    if (!strcmp(r.lines[k], "@")) {
      ok = at < 0 && r.op == IXJ_OP_COPY;
      at = k;
      continue;
    }
    ok = ixj_ixfun_parse(r.lines[k], &ops[k].f, NULL) == IXJ_OK;
  }
  if (ok && at >= 0) {
    const ixj_ixfun *other = ops[1 - at].f;
    int64_t shape[IXJ_MAX_RANK];
    ixj_ixfun_shape(other, shape);
    ok = ixj_ixfun_iota(ixj_ixfun_rank(other), shape, 0, &ops[at].f, NULL) == IXJ_OK;
  }
  if (ok) run_case(&r, ops, r.op == IXJ_OP_FILL ? 0 : n_srcs);
  for (int k = 0; k < r.num_lines; k++) ixj_ixfun_free(ops[k].f);
  return 0;
}
