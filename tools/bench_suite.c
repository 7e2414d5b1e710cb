/* Suite files for `ixjit bench` (the format is in docs/benchmarks.md):
 *
 *   # comment
 *   let N = 4096 scale 1/2 multiple 16
 *   copy t2d_e4 elem=4 dst=iota $N $N src=iota $N $N | permute 1 0
 *   cat  cat2   elem=4 axis=1 threads=1,2 dst=iota $N $N src=iota $N $(N/2) src=iota $(N/2) $N | permute 1 0
 *
 * Every error is "SUITE:LINE: message", and every IXFUN is parsed and the
 * shapes checked while loading, so a broken suite never starts measuring. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

extern const char bench_default_suite[]; /* generated from bench/suites/default.suite */

const char *bench_default_suite_text(void) { return bench_default_suite; }

#define MAX_VARS 64

typedef struct var {
  char name[32];
  int64_t value;
} var;

typedef struct parser {
  const char *suite;
  int line;
  var vars[MAX_VARS];
  int num_vars;
  char *msg;
  size_t msg_size;
} parser;

static bool fail(parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool fail(parser *p, const char *fmt, ...) {
  int n = snprintf(p->msg, p->msg_size, "%s:%d: ", p->suite, p->line);
  if (n < 0 || (size_t)n >= p->msg_size) return false;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->msg + n, p->msg_size - (size_t)n, fmt, ap);
  va_end(ap);
  return false;
}

static const var *find_var(const parser *p, const char *name, size_t len) {
  for (int k = 0; k < p->num_vars; k++)
    if (strlen(p->vars[k].name) == len && !strncmp(p->vars[k].name, name, len)) return &p->vars[k];
  return NULL;
}

/* ---- integer expressions: + - * / % ( ) over literals and variables ---- */

static bool expr(parser *p, const char **s, int64_t *out);

static void skip_space(const char **s) {
  while (**s == ' ' || **s == '\t') (*s)++;
}

static bool factor(parser *p, const char **s, int64_t *out) {
  skip_space(s);
  if (**s == '(') {
    (*s)++;
    if (!expr(p, s, out)) return false;
    skip_space(s);
    if (**s != ')') return fail(p, "expression: missing ')'");
    (*s)++;
    return true;
  }
  if (isdigit((unsigned char)**s)) {
    errno = 0;
    char *end;
    long long v = strtoll(*s, &end, 10);
    if (errno) return fail(p, "expression: number out of range");
    *s = end;
    *out = v;
    return true;
  }
  if (isalpha((unsigned char)**s) || **s == '_') {
    const char *b = *s;
    while (isalnum((unsigned char)**s) || **s == '_') (*s)++;
    const var *v = find_var(p, b, (size_t)(*s - b));
    if (!v) return fail(p, "unknown variable '%.*s'", (int)(*s - b), b);
    *out = v->value;
    return true;
  }
  if (!**s) return fail(p, "expression: missing a number or variable at the end");
  return fail(p, "expression: unexpected '%c'", **s);
}

static bool term(parser *p, const char **s, int64_t *out) {
  if (!factor(p, s, out)) return false;
  for (;;) {
    skip_space(s);
    char op = **s;
    if (op != '*' && op != '/' && op != '%') return true;
    (*s)++;
    int64_t r;
    if (!factor(p, s, &r)) return false;
    if (op == '*') {
      if (__builtin_mul_overflow(*out, r, out)) return fail(p, "expression: overflow");
    } else {
      if (r == 0) return fail(p, "expression: division by zero");
      *out = op == '/' ? *out / r : *out % r;
    }
  }
}

static bool expr(parser *p, const char **s, int64_t *out) {
  if (!term(p, s, out)) return false;
  for (;;) {
    skip_space(s);
    char op = **s;
    if (op != '+' && op != '-') return true;
    (*s)++;
    int64_t r;
    if (!term(p, s, &r)) return false;
    if (op == '+' ? __builtin_add_overflow(*out, r, out) : __builtin_sub_overflow(*out, r, out))
      return fail(p, "expression: overflow");
  }
}

/* A whole expression from text (up to its end). */
static bool eval_text(parser *p, const char *text, int64_t *out) {
  const char *s = text;
  if (!expr(p, &s, out)) return false;
  skip_space(&s);
  if (*s) return fail(p, "expression: unexpected '%c'", *s);
  return true;
}

/* ---- lines ---------------------------------------------------------------- */

/* let NAME = EXPR [scale P/Q] [multiple M]: with --size-scale S the value
 * becomes EXPR * S^(P/Q), rounded down to a multiple of M (at least M). */
static bool parse_let(parser *p, char *rest, double size_scale) {
  char *s = rest;
  skip_space((const char **)&s);
  char *name = s;
  while (isalnum((unsigned char)*s) || *s == '_') s++;
  size_t len = (size_t)(s - name);
  if (!len || isdigit((unsigned char)name[0])) return fail(p, "let: expected a variable name");
  if (len >= sizeof p->vars[0].name) return fail(p, "let: variable name too long");
  if (find_var(p, name, len)) return fail(p, "let: variable '%.*s' defined twice", (int)len, name);
  if (p->num_vars == MAX_VARS) return fail(p, "let: more than %d variables", MAX_VARS);
  skip_space((const char **)&s);
  if (*s != '=') return fail(p, "let: expected '=' after '%.*s'", (int)len, name);
  s++;
  char *scale = strstr(s, " scale "), *multiple = strstr(s, " multiple ");
  char *end = s + strlen(s);
  if (scale && scale < end) end = scale;
  if (multiple && multiple < end) end = multiple;
  char save = *end;
  *end = '\0';
  int64_t v;
  bool ok = eval_text(p, s, &v);
  *end = save;
  if (!ok) return false;
  int64_t num = 0, den = 1, mult = 1;
  if (scale) {
    char *q = scale + 7, *stop;
    num = strtoll(q, &stop, 10);
    if (stop == q) return fail(p, "let: scale: expected P or P/Q");
    if (*stop == '/') {
      q = stop + 1;
      den = strtoll(q, &stop, 10);
      if (stop == q || den <= 0) return fail(p, "let: scale: expected a positive Q in P/Q");
    }
    if (*stop && *stop != ' ') return fail(p, "let: scale: unexpected '%c'", *stop);
  }
  if (multiple) {
    char *q = multiple + 10, *stop;
    mult = strtoll(q, &stop, 10);
    if (stop == q || mult <= 0) return fail(p, "let: multiple: expected a positive number");
    if (*stop && *stop != ' ') return fail(p, "let: multiple: unexpected '%c'", *stop);
  }
  if (num) {
    double scaled = (double)v * pow(size_scale, (double)num / (double)den);
    if (!(scaled < 9e18)) return fail(p, "let: scaled value out of range");
    v = (int64_t)scaled;
  }
  v -= v % mult;
  if (v < mult) v = mult;
  var *nv = &p->vars[p->num_vars++];
  memcpy(nv->name, name, len);
  nv->name[len] = '\0';
  nv->value = v;
  return true;
}

/* The IXFUN text with $NAME and $(EXPR) replaced by their values (malloc'd). */
static char *substitute(parser *p, const char *text) {
  size_t cap = strlen(text) * 4 + 64, n = 0;
  char *out = malloc(cap);
  if (!out) {
    fail(p, "out of memory");
    return NULL;
  }
  for (const char *s = text; *s;) {
    if (n + 32 >= cap) {
      char *bigger = realloc(out, cap *= 2);
      if (!bigger) {
        free(out);
        fail(p, "out of memory");
        return NULL;
      }
      out = bigger;
    }
    if (*s != '$') {
      out[n++] = *s++;
      continue;
    }
    int64_t v;
    s++;
    if (*s == '(') {
      const char *b = s + 1;
      int depth = 1;
      for (s = b; *s && depth; s++) depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
      if (depth) {
        free(out);
        fail(p, "'$(' without its ')'");
        return NULL;
      }
      char sub[256];
      size_t len = (size_t)(s - 1 - b);
      if (len >= sizeof sub) {
        free(out);
        fail(p, "expression too long");
        return NULL;
      }
      memcpy(sub, b, len);
      sub[len] = '\0';
      if (!eval_text(p, sub, &v)) {
        free(out);
        return NULL;
      }
    } else {
      const char *b = s;
      while (isalnum((unsigned char)*s) || *s == '_') s++;
      if (s == b) {
        free(out);
        fail(p, "'$' must be followed by a variable name or '('");
        return NULL;
      }
      const var *found = find_var(p, b, (size_t)(s - b));
      if (!found) {
        free(out);
        fail(p, "unknown variable '%.*s'", (int)(s - b), b);
        return NULL;
      }
      v = found->value;
    }
    n += (size_t)snprintf(out + n, cap - n, "%lld", (long long)v);
  }
  out[n] = '\0';
  return out;
}

static bool parse_threads(parser *p, const char *text, int *count, int *threads) {
  *count = 0;
  const char *s = text;
  for (;;) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 1024) return fail(p, "threads: expected counts 1..1024 separated by commas");
    if (*count == BENCH_MAX_THREADS) return fail(p, "threads: more than %d counts", BENCH_MAX_THREADS);
    threads[(*count)++] = (int)v;
    if (*end == '\0') return true;
    if (*end != ',') return fail(p, "threads: unexpected '%c'", *end);
    s = end + 1;
  }
}

/* Where the next " dst=" or " src=" starts (at whitespace), or NULL. */
static char *next_operand(char *s) {
  for (char *q = s; *q; q++)
    if ((q == s || q[-1] == ' ' || q[-1] == '\t') && (!strncmp(q, "dst=", 4) || !strncmp(q, "src=", 4))) return q;
  return NULL;
}

static void trim_end(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
}

/* An operand: substituted, parsed, its shape returned. */
static bool operand(parser *p, const char *what, const char *text, char **out, int *rank, int64_t *shape) {
  *out = substitute(p, text);
  if (!*out) return false;
  if (!**out) return fail(p, "%s: empty IXFUN", what);
  ixj_ixfun *f;
  ixj_error err;
  if (ixj_ixfun_parse(*out, &f, &err) != IXJ_OK) return fail(p, "%s: %s", what, err.message);
  *rank = ixj_ixfun_rank(f);
  ixj_ixfun_shape(f, shape);
  ixj_ixfun_free(f);
  return true;
}

static void case_free(bench_case *c) {
  free(c->dst);
  for (int k = 0; k < c->num_srcs; k++) free(c->src[k]);
}

static bool shapes_agree(parser *p, const bench_case *c, int drank, const int64_t *dshape, int nsrc,
                         const int *srank, int64_t (*sshape)[IXJ_MAX_RANK]) {
  if (c->op == IXJ_OP_FILL) return nsrc == 0 ? true : fail(p, "fill takes no src=");
  if (c->op == IXJ_OP_COPY && nsrc != 1) return fail(p, "copy takes exactly one src= (got %d)", nsrc);
  if (c->op == IXJ_OP_CAT && nsrc < 1) return fail(p, "cat needs at least one src=");
  if (c->op == IXJ_OP_CAT && (c->axis < 0 || c->axis >= drank))
    return fail(p, "cat: axis=%d outside the destination's rank %d", c->axis, drank);
  int64_t along = 0;
  for (int q = 0; q < nsrc; q++) {
    if (srank[q] != drank) return fail(p, "src %d: rank %d, the destination's is %d", q + 1, srank[q], drank);
    for (int k = 0; k < drank; k++) {
      if (c->op == IXJ_OP_CAT && k == c->axis) continue;
      if (sshape[q][k] != dshape[k])
        return fail(p, "src %d: extent %lld in dim %d, the destination's is %lld", q + 1, (long long)sshape[q][k], k,
                    (long long)dshape[k]);
    }
    if (c->op == IXJ_OP_CAT) along += sshape[q][c->axis];
  }
  if (c->op == IXJ_OP_CAT && along != dshape[c->axis])
    return fail(p, "cat: the inputs' extents along axis %d add up to %lld, the destination's is %lld", c->axis,
                (long long)along, (long long)dshape[c->axis]);
  return true;
}

/* OP NAME [elem=E] [axis=K] [threads=LIST] dst=IXFUN [src=IXFUN]... */
static bool parse_case(parser *p, char *line, bench_case *c) {
  memset(c, 0, sizeof *c);
  c->line = p->line;
  c->elem_size = 0;
  char *ops = next_operand(line);
  if (!ops) return fail(p, "missing dst=");
  char *header_end = ops;
  char saved = *header_end;
  *header_end = '\0';
  char *save = NULL, *word = strtok_r(line, " \t", &save);
  if (!strcmp(word, "copy")) c->op = IXJ_OP_COPY;
  else if (!strcmp(word, "fill")) c->op = IXJ_OP_FILL;
  else if (!strcmp(word, "cat")) c->op = IXJ_OP_CAT;
  else return fail(p, "unknown operation '%s' (copy, fill, cat or let)", word);
  char *name = strtok_r(NULL, " \t", &save);
  if (!name || strchr(name, '=')) return fail(p, "missing the case name after '%s'", word);
  for (char *q = name; *q; q++)
    if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-' && *q != '.')
      return fail(p, "case name '%s': only letters, digits, '_', '-' and '.'", name);
  if (strlen(name) >= sizeof c->name) return fail(p, "case name '%s' too long", name);
  strcpy(c->name, name);
  bool have_axis = false;
  while ((word = strtok_r(NULL, " \t", &save))) {
    char *eq = strchr(word, '=');
    if (!eq) return fail(p, "unexpected '%s' (expected elem=, axis=, threads=, dst=)", word);
    *eq = '\0';
    const char *value = eq + 1;
    char *end;
    if (!strcmp(word, "elem")) {
      long e = strtol(value, &end, 10);
      if (*end || (e != 1 && e != 2 && e != 4 && e != 8 && e != 16))
        return fail(p, "elem=%s: element size must be 1, 2, 4, 8 or 16", value);
      c->elem_size = (int)e;
    } else if (!strcmp(word, "axis")) {
      long a = strtol(value, &end, 10);
      if (*end || end == value || a < 0) return fail(p, "axis=%s: expected a dim number", value);
      c->axis = (int)a;
      have_axis = true;
    } else if (!strcmp(word, "threads")) {
      if (!parse_threads(p, value, &c->num_threads, c->threads)) return false;
    } else {
      return fail(p, "unknown key '%s=' (elem, axis, threads, dst, src)", word);
    }
  }
  *header_end = saved;
  if (!c->elem_size) return fail(p, "missing elem=");
  if (have_axis && c->op != IXJ_OP_CAT) return fail(p, "axis= is only for cat");
  if (!have_axis && c->op == IXJ_OP_CAT) return fail(p, "cat needs axis=");
  int drank = -1, srank[BENCH_MAX_SRCS];
  int64_t dshape[IXJ_MAX_RANK], sshape[BENCH_MAX_SRCS][IXJ_MAX_RANK];
  for (char *q = ops; q;) {
    char *next = next_operand(q + 4);
    if (next) next[-1] = '\0';
    bool is_dst = !strncmp(q, "dst=", 4);
    char *text = q + 4;
    trim_end(text);
    if (is_dst) {
      if (c->dst) return fail(p, "dst= given twice");
      if (!operand(p, "dst", text, &c->dst, &drank, dshape)) return false;
    } else {
      if (c->num_srcs == BENCH_MAX_SRCS) return fail(p, "more than %d src=", BENCH_MAX_SRCS);
      char what[16];
      snprintf(what, sizeof what, "src %d", c->num_srcs + 1);
      int k = c->num_srcs;
      if (!operand(p, what, text, &c->src[k], &srank[k], sshape[k])) {
        c->num_srcs++; /* so the text is freed */
        return false;
      }
      c->num_srcs++;
    }
    q = next;
  }
  if (!c->dst) return fail(p, "missing dst=");
  return shapes_agree(p, c, drank, dshape, c->num_srcs, srank, sshape);
}

bool bench_suite_parse(const char *text, const char *name, double size_scale, bench_suite *out, char *msg,
                       size_t msg_size) {
  memset(out, 0, sizeof *out);
  parser p = {.suite = name, .msg = msg, .msg_size = msg_size};
  char *copy = strdup(text), *save = NULL;
  out->name = strdup(name);
  if (!copy || !out->name) {
    free(copy);
    snprintf(msg, msg_size, "%s: out of memory", name);
    bench_suite_free(out);
    return false;
  }
  int cap = 0;
  bool ok = true;
  /* strtok_r would merge empty lines and miscount them: split by hand. */
  for (char *line = copy, *next; ok && line; line = next) {
    p.line++;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    trim_end(line);
    while (*line == ' ' || *line == '\t') line++;
    if (!*line) continue;
    if (!strncmp(line, "let ", 4) || !strncmp(line, "let\t", 4)) {
      ok = parse_let(&p, line + 4, size_scale);
      continue;
    }
    if (out->count == cap) {
      cap = cap ? 2 * cap : 32;
      bench_case *bigger = realloc(out->cases, (size_t)cap * sizeof *bigger);
      if (!bigger) {
        ok = fail(&p, "out of memory");
        break;
      }
      out->cases = bigger;
    }
    bench_case *c = &out->cases[out->count];
    ok = parse_case(&p, line, c);
    if (!ok) {
      case_free(c);
      break;
    }
    for (int k = 0; k < out->count; k++)
      if (!strcmp(out->cases[k].name, c->name)) {
        ok = fail(&p, "case '%s' defined twice (first at line %d)", c->name, out->cases[k].line);
        case_free(c);
        break;
      }
    if (ok) out->count++;
  }
  (void)save;
  free(copy);
  if (ok && out->count == 0) {
    snprintf(msg, msg_size, "%s: no cases", name);
    ok = false;
  }
  if (!ok) bench_suite_free(out);
  return ok;
}

bool bench_suite_load(const char *path, double size_scale, bench_suite *out, char *msg, size_t msg_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, msg_size, "%s: %s", path, strerror(errno));
    return false;
  }
  size_t cap = 4096, n = 0;
  char *text = malloc(cap);
  for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
    n += got;
    if (n + 1 == cap) {
      char *bigger = realloc(text, cap *= 2);
      if (!bigger) {
        free(text);
        text = NULL;
      }
      text = bigger;
    }
  }
  bool read_error = ferror(f);
  fclose(f);
  if (!text || read_error) {
    free(text);
    snprintf(msg, msg_size, "%s: %s", path, read_error ? "read error" : "out of memory");
    return false;
  }
  text[n] = '\0';
  bool ok = bench_suite_parse(text, path, size_scale, out, msg, msg_size);
  free(text);
  return ok;
}

void bench_suite_free(bench_suite *s) {
  for (int k = 0; k < s->count; k++) case_free(&s->cases[k]);
  free(s->cases);
  free(s->name);
  memset(s, 0, sizeof *s);
}
