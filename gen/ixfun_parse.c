/* Parsing the IXFUN text syntax: a pipeline of stages separated by `|`, whose
 * first stage is `iota`, `strided` or Futhark's printed format. Every error
 * names the stage and the column (1-based) where it was found. */
#include "ixfun_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "error.h"

#define MAX_WORDS 64
#define MAX_DEPTH 32

typedef struct word {
  const char *s;
  size_t len;
  int col;
} word;

typedef struct parser {
  const char *text;
  size_t pos;
  int depth;
  ixj_error *err;
  int64_t budget; /* the exact walks' evaluations left for this whole text */
} parser;

/* 1-based column of a byte position. */
static int column(size_t pos) { return (int)pos + 1; }

static ixj_status perr(parser *p, int col, ixj_status st, const char *fmt, ...) IXJ_PRINTF(4, 5);
static ixj_status perr(parser *p, int col, ixj_status st, const char *fmt, ...) {
  if (p->err) {
    char msg[IXJ_ERROR_MESSAGE_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ixj__fail(p->err, st, "column %d: %s", col, msg);
    p->err->column = col;
  }
  return st;
}

/* An error from the algebra, located at the stage that caused it. */
static ixj_status stage_err(parser *p, int col, ixj_status st, const ixj_error *inner) {
  return perr(p, col, st, "%s", inner->message);
}

static void skip_ws(parser *p) {
  while (p->text[p->pos] && isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static bool is_word_char(char c) { return c && !isspace((unsigned char)c) && !strchr("|()", c); }

static word next_word(parser *p) {
  word w;
  skip_ws(p);
  w.s = p->text + p->pos;
  w.col = column(p->pos);
  while (is_word_char(p->text[p->pos])) p->pos++;
  w.len = (size_t)(p->text + p->pos - w.s);
  return w;
}

static bool word_is(word w, const char *s) { return w.len == strlen(s) && !memcmp(w.s, s, w.len); }

/* A decimal int64 spanning exactly [s, s+len). */
static bool parse_int(const char *s, size_t len, int64_t *out) {
  size_t i = 0;
  bool neg = false;
  int64_t v = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i == len) return false;
  for (; i < len; i++) {
    if (!isdigit((unsigned char)s[i])) return false;
    int d = s[i] - '0';
    if (ixj_mul_ovf(v, 10, &v) || ixj_add_ovf(v, neg ? -d : d, &v)) return false;
  }
  *out = v;
  return true;
}

static ixj_status int_arg(parser *p, const char *stage, const char *s, size_t len, int col, int64_t *out) {
  if (parse_int(s, len, out)) return IXJ_OK;
  bool digits = len > 0;
  for (size_t i = 0; i < len; i++)
    if (!isdigit((unsigned char)s[i]) && !(i == 0 && (s[i] == '-' || s[i] == '+'))) digits = false;
  if (digits)
    return perr(p, col, IXJ_ERR_OVERFLOW, "%s: '%.*s' overflows 64-bit integers", stage, (int)len, s);
  return perr(p, col, IXJ_ERR_PARSE, "%s: expected an integer, found '%.*s'", stage, (int)len, s);
}

/* Words up to the end of the stage (`|`, `)` or the end of the text). */
static ixj_status stage_words(parser *p, const char *stage, word *words, int *n) {
  *n = 0;
  for (;;) {
    skip_ws(p);
    char c = p->text[p->pos];
    if (!c || c == '|' || c == ')') return IXJ_OK;
    if (c == '(')
      return perr(p, column(p->pos), IXJ_ERR_PARSE, "%s: unexpected '('", stage);
    if (*n == MAX_WORDS)
      return perr(p, column(p->pos), IXJ_ERR_LIMIT, "%s: more than %d items", stage, MAX_WORDS);
    words[(*n)++] = next_word(p);
  }
}

static ixj_status int_list(parser *p, const char *stage, const word *w, int n, int64_t *out) {
  if (n > IXJ_MAX_RANK)
    return perr(p, w[IXJ_MAX_RANK].col, IXJ_ERR_LIMIT, "%s: more than %d items", stage, IXJ_MAX_RANK);
  for (int k = 0; k < n; k++) {
    ixj_status st = int_arg(p, stage, w[k].s, w[k].len, w[k].col, &out[k]);
    if (st != IXJ_OK) return st;
  }
  return IXJ_OK;
}

/* `key=a,b,c` into out; returns the count. */
static ixj_status key_list(parser *p, const char *stage, word w, size_t keylen, int64_t *out, int *n) {
  const char *s = w.s + keylen, *end = w.s + w.len;
  *n = 0;
  if (s == end) return IXJ_OK;
  for (;;) {
    const char *comma = memchr(s, ',', (size_t)(end - s));
    const char *stop = comma ? comma : end;
    if (*n == IXJ_MAX_RANK)
      return perr(p, w.col, IXJ_ERR_LIMIT, "%s: more than %d items", stage, IXJ_MAX_RANK);
    ixj_status st = int_arg(p, stage, s, (size_t)(stop - s), w.col + (int)(s - w.s), &out[(*n)++]);
    if (st != IXJ_OK) return st;
    if (!comma) return IXJ_OK;
    s = comma + 1;
  }
}

/* ---- first stages -------------------------------------------------------- */

static ixj_status parse_iota(parser *p, int col, ixj_ixfun **out) {
  word w[MAX_WORDS];
  int n, rank = 0;
  int64_t shape[IXJ_MAX_RANK], offset = 0;
  ixj_error e;
  ixj_status st = stage_words(p, "iota", w, &n);
  if (st != IXJ_OK) return st;
  for (int k = 0; k < n; k++) {
    if (w[k].len >= 7 && !memcmp(w[k].s, "offset=", 7)) {
      if (k != n - 1) return perr(p, w[k].col, IXJ_ERR_PARSE, "iota: offset= must come last");
      st = int_arg(p, "iota", w[k].s + 7, w[k].len - 7, w[k].col + 7, &offset);
    } else if (rank == IXJ_MAX_RANK) {
      return perr(p, w[k].col, IXJ_ERR_LIMIT, "iota: more than %d dims", IXJ_MAX_RANK);
    } else {
      st = int_arg(p, "iota", w[k].s, w[k].len, w[k].col, &shape[rank++]);
    }
    if (st != IXJ_OK) return st;
  }
  st = ixj_ixfun_iota(rank, shape, offset, out, &e);
  return st == IXJ_OK ? st : stage_err(p, col, st, &e);
}

static ixj_status parse_strided(parser *p, int col, ixj_ixfun **out) {
  word w[MAX_WORDS];
  int n, nshape = -1, nstrides = -1;
  int64_t shape[IXJ_MAX_RANK], strides[IXJ_MAX_RANK], offset = 0;
  bool have_offset = false;
  ixj_error e;
  ixj_status st = stage_words(p, "strided", w, &n);
  for (int k = 0; st == IXJ_OK && k < n; k++) {
    if (w[k].len >= 6 && !memcmp(w[k].s, "shape=", 6) && nshape < 0)
      st = key_list(p, "strided", w[k], 6, shape, &nshape);
    else if (w[k].len >= 8 && !memcmp(w[k].s, "strides=", 8) && nstrides < 0)
      st = key_list(p, "strided", w[k], 8, strides, &nstrides);
    else if (w[k].len >= 7 && !memcmp(w[k].s, "offset=", 7) && !have_offset) {
      have_offset = true;
      st = int_arg(p, "strided", w[k].s + 7, w[k].len - 7, w[k].col + 7, &offset);
    } else
      st = perr(p, w[k].col, IXJ_ERR_PARSE, "strided: unexpected '%.*s' (expected shape=, strides=, offset=, each once)",
                (int)w[k].len, w[k].s);
  }
  if (st != IXJ_OK) return st;
  if (nshape < 0 || nstrides < 0)
    return perr(p, col, IXJ_ERR_PARSE, "strided: needs shape= and strides=");
  if (nshape != nstrides)
    return perr(p, col, IXJ_ERR_INVALID_ARGUMENT, "strided: %d extents but %d strides", nshape, nstrides);
  st = ixj_ixfun_strided(nshape, shape, strides, offset, out, &e);
  return st == IXJ_OK ? st : stage_err(p, col, st, &e);
}

/* Futhark's printed format. Tokens: punctuation {}[];:, and words. */
static ixj_status fut_token(parser *p, word *t) {
  skip_ws(p);
  t->s = p->text + p->pos;
  t->col = column(p->pos);
  if (!*t->s) {
    t->len = 0;
    return IXJ_OK;
  }
  if (strchr("{}[];:,", *t->s)) {
    t->len = 1;
    p->pos++;
    return IXJ_OK;
  }
  while (p->text[p->pos] && (isalnum((unsigned char)p->text[p->pos]) || strchr("+-_", p->text[p->pos])))
    p->pos++;
  t->len = (size_t)(p->text + p->pos - t->s);
  if (!t->len) return perr(p, t->col, IXJ_ERR_PARSE, "index function: unexpected '%c'", *t->s);
  return IXJ_OK;
}

static ixj_status fut_expect(parser *p, const char *what) {
  word t;
  ixj_status st = fut_token(p, &t);
  if (st != IXJ_OK) return st;
  if (!word_is(t, what))
    return perr(p, t.col, IXJ_ERR_PARSE, "index function: expected '%s', found '%.*s'", what,
                (int)(t.len ? t.len : 3), t.len ? t.s : "end");
  return IXJ_OK;
}

static ixj_status fut_field(parser *p, const char *name) {
  ixj_status st = fut_expect(p, name);
  return st != IXJ_OK ? st : fut_expect(p, ":");
}

/* `[a, b, ...]` of integers, or of monotonicity names when mono != NULL. */
static ixj_status fut_list(parser *p, const char *name, int64_t *v, ixj_monotonicity *mono, int *n) {
  word t;
  ixj_status st = fut_expect(p, "[");
  *n = 0;
  if (st != IXJ_OK) return st;
  for (;;) {
    if ((st = fut_token(p, &t)) != IXJ_OK) return st;
    if (*n == 0 && word_is(t, "]")) return IXJ_OK;
    if (*n == IXJ_MAX_RANK) return perr(p, t.col, IXJ_ERR_LIMIT, "%s: more than %d items", name, IXJ_MAX_RANK);
    if (mono) {
      if (word_is(t, "Inc")) mono[*n] = IXJ_MONO_INC;
      else if (word_is(t, "Dec")) mono[*n] = IXJ_MONO_DEC;
      else if (word_is(t, "Unknown")) mono[*n] = IXJ_MONO_UNKNOWN;
      else return perr(p, t.col, IXJ_ERR_PARSE, "%s: expected Inc, Dec or Unknown, found '%.*s'", name, (int)t.len, t.s);
    } else if ((st = int_arg(p, name, t.s, t.len, t.col, &v[*n])) != IXJ_OK) {
      return st;
    }
    (*n)++;
    if ((st = fut_token(p, &t)) != IXJ_OK) return st;
    if (word_is(t, "]")) return IXJ_OK;
    if (!word_is(t, ","))
      return perr(p, t.col, IXJ_ERR_PARSE, "%s: expected ',' or ']'", name);
  }
}

static ixj_status fut_lmad(parser *p, ixj_lmad *l) {
  int64_t v[5][IXJ_MAX_RANK];
  ixj_monotonicity mono[IXJ_MAX_RANK];
  int n[6], col = column(p->pos);
  static const char *names[] = {"strides", "rotates", "shape", "permutation", "monotonicity"};
  word t;
  ixj_status st;
  if ((st = fut_expect(p, "{")) != IXJ_OK || (st = fut_field(p, "offset")) != IXJ_OK) return st;
  if ((st = fut_token(p, &t)) != IXJ_OK) return st;
  if ((st = int_arg(p, "offset", t.s, t.len, t.col, &l->offset)) != IXJ_OK) return st;
  for (int f = 0; f < 5; f++) {
    if ((st = fut_expect(p, ";")) != IXJ_OK || (st = fut_field(p, names[f])) != IXJ_OK) return st;
    st = fut_list(p, names[f], v[f], f == 4 ? mono : NULL, &n[f]);
    if (st != IXJ_OK) return st;
    if (n[f] != n[0])
      return perr(p, col, IXJ_ERR_INVALID_ARGUMENT, "LMAD: %s has %d items but strides has %d", names[f], n[f], n[0]);
  }
  if ((st = fut_expect(p, "}")) != IXJ_OK) return st;
  l->rank = n[0];
  for (int j = 0; j < l->rank; j++) {
    l->stride[j] = v[0][j];
    l->rotate[j] = v[1][j];
    l->shape[j] = v[2][j];
    l->perm[j] = v[3][j] < 0 || v[3][j] >= l->rank ? -1 : (int)v[3][j];
    if ((mono[j] == IXJ_MONO_INC && l->stride[j] < 0) || (mono[j] == IXJ_MONO_DEC && l->stride[j] > 0))
      return perr(p, col, IXJ_ERR_INVALID_ARGUMENT, "LMAD: monotonicity %s contradicts stride %lld",
                  mono[j] == IXJ_MONO_INC ? "Inc" : "Dec", (long long)l->stride[j]);
  }
  return IXJ_OK;
}

static ixj_status parse_futhark(parser *p, ixj_ixfun **out) {
  int col = column(p->pos), base_rank, count = 0;
  int64_t base[IXJ_MAX_RANK];
  ixj_lmad *lmads = NULL;
  word t;
  ixj_error e;
  ixj_status st;
  if ((st = fut_expect(p, "{")) != IXJ_OK || (st = fut_field(p, "base")) != IXJ_OK ||
      (st = fut_list(p, "base", base, NULL, &base_rank)) != IXJ_OK || (st = fut_expect(p, ";")) != IXJ_OK ||
      (st = fut_field(p, "contiguous")) != IXJ_OK || (st = fut_token(p, &t)) != IXJ_OK)
    return st;
  /* Contiguity is derived from the LMADs; the field is read for compatibility. */
  if (!word_is(t, "true") && !word_is(t, "false") && !word_is(t, "True") && !word_is(t, "False"))
    return perr(p, t.col, IXJ_ERR_PARSE, "contiguous: expected true or false");
  if ((st = fut_expect(p, ";")) != IXJ_OK || (st = fut_field(p, "LMADs")) != IXJ_OK ||
      (st = fut_expect(p, "[")) != IXJ_OK)
    return st;
  lmads = calloc(IXJ_MAX_LMADS, sizeof *lmads);
  if (!lmads) return perr(p, col, IXJ_ERR_NO_MEMORY, "out of memory");
  for (;;) {
    if (count == IXJ_MAX_LMADS) {
      st = perr(p, column(p->pos), IXJ_ERR_LIMIT, "more than %d LMADs", IXJ_MAX_LMADS);
      break;
    }
    if ((st = fut_lmad(p, &lmads[count++])) != IXJ_OK) break;
    if ((st = fut_token(p, &t)) != IXJ_OK) break;
    if (word_is(t, "]")) break;
    if (!word_is(t, ",")) {
      st = perr(p, t.col, IXJ_ERR_PARSE, "LMADs: expected ',' or ']'");
      break;
    }
  }
  if (st == IXJ_OK) st = fut_expect(p, "}");
  if (st == IXJ_OK) {
    st = ixj__ixfun_from_lmads_within(count, lmads, base_rank, base, &p->budget, out, &e);
    if (st != IXJ_OK) stage_err(p, col, st, &e);
  }
  free(lmads);
  return st;
}

/* ---- later stages -------------------------------------------------------- */

/* One slice item for a dim of `extent`. */
static ixj_status slice_item(parser *p, word w, int64_t extent, ixj_slice_item *it) {
  const char *s = w.s, *end = w.s + w.len;
  const char *colon = memchr(s, ':', w.len);
  ixj_error e;
  ixj_status st;
  if (!colon) { /* fixed index, negative counts from the end */
    int64_t i;
    if ((st = int_arg(p, "slice", s, w.len, w.col, &i)) != IXJ_OK) return st;
    if (i < 0 && i >= -extent) i += extent;
    if (i < 0 || i >= extent)
      return perr(p, w.col, IXJ_ERR_OUT_OF_RANGE, "slice: index %.*s is out of range for a dim of extent %lld",
                  (int)w.len, s, (long long)extent);
    it->kind = IXJ_SLICE_FIX;
    it->start = i;
    it->count = 1;
    it->step = 0;
    return IXJ_OK;
  }
  if (colon + 1 < end && colon[1] == '+') { /* start:+count*step */
    const char *star = memchr(colon, '*', (size_t)(end - colon));
    if (!star) return perr(p, w.col, IXJ_ERR_PARSE, "slice: expected start:+count*step in '%.*s'", (int)w.len, s);
    it->kind = IXJ_SLICE_RANGE;
    if ((st = int_arg(p, "slice", s, (size_t)(colon - s), w.col, &it->start)) != IXJ_OK ||
        (st = int_arg(p, "slice", colon + 2, (size_t)(star - colon - 2), w.col + (int)(colon + 2 - s), &it->count)) != IXJ_OK ||
        (st = int_arg(p, "slice", star + 1, (size_t)(end - star - 1), w.col + (int)(star + 1 - s), &it->step)) != IXJ_OK)
      return st;
    return IXJ_OK;
  }
  /* NumPy [start]:[stop][:step] */
  const char *parts[3] = {s, colon + 1, NULL}, *ends[3] = {colon, end, end};
  const char *colon2 = memchr(colon + 1, ':', (size_t)(end - colon - 1));
  if (colon2) {
    ends[1] = colon2;
    parts[2] = colon2 + 1;
    if (memchr(colon2 + 1, ':', (size_t)(end - colon2 - 1)))
      return perr(p, w.col, IXJ_ERR_PARSE, "slice: too many ':' in '%.*s'", (int)w.len, s);
  }
  int64_t v[3] = {0, 0, 1};
  bool have[3] = {false, false, false};
  for (int k = 0; k < 3; k++) {
    if (!parts[k] || parts[k] == ends[k]) continue;
    have[k] = true;
    if ((st = int_arg(p, "slice", parts[k], (size_t)(ends[k] - parts[k]), w.col + (int)(parts[k] - s), &v[k])) != IXJ_OK)
      return st;
  }
  if (have[2] && v[2] == 0) return perr(p, w.col, IXJ_ERR_INVALID_ARGUMENT, "slice: step cannot be zero in '%.*s'", (int)w.len, s);
  st = ixj_slice_numpy(extent, have[0], v[0], have[1], v[1], v[2], it, &e);
  return st == IXJ_OK ? st : stage_err(p, w.col, st, &e);
}

static ixj_status parse_pipeline(parser *p, ixj_ixfun **out);

static ixj_status apply_stage(parser *p, word name, ixj_ixfun *f, ixj_ixfun **out) {
  word w[MAX_WORDS];
  int n, rank = ixj_ixfun_rank(f);
  int64_t v[IXJ_MAX_RANK];
  ixj_error e;
  ixj_status st;
  const char *stage = word_is(name, "permute") ? "permute" : word_is(name, "rotate") ? "rotate"
                    : word_is(name, "slice") ? "slice" : word_is(name, "reshape") ? "reshape"
                    : word_is(name, "expand") ? "expand" : word_is(name, "rebase") ? "rebase" : NULL;
  if (!stage) {
    if (word_is(name, "iota") || word_is(name, "strided") || (name.len && name.s[0] == '{'))
      return perr(p, name.col, IXJ_ERR_PARSE, "'%.*s' must be the first stage", (int)name.len, name.s);
    return perr(p, name.col, IXJ_ERR_PARSE, "unknown stage '%.*s' (expected permute, rotate, slice, reshape, expand or rebase)",
                (int)name.len, name.s);
  }
  if (word_is(name, "rebase")) {
    ixj_ixfun *nb = NULL;
    skip_ws(p);
    if (p->text[p->pos] != '(')
      return perr(p, column(p->pos), IXJ_ERR_PARSE, "rebase: expected '(' and an index function");
    if (p->depth >= MAX_DEPTH)
      return perr(p, column(p->pos), IXJ_ERR_LIMIT, "rebase: nested more than %d deep", MAX_DEPTH);
    p->pos++;
    p->depth++;
    st = parse_pipeline(p, &nb);
    p->depth--;
    if (st != IXJ_OK) return st;
    skip_ws(p);
    if (p->text[p->pos] != ')') {
      ixj_ixfun_free(nb);
      return perr(p, column(p->pos), IXJ_ERR_PARSE, "rebase: expected ')'");
    }
    p->pos++;
    st = ixj__ixfun_rebase_within(f, nb, &p->budget, out, &e);
    ixj_ixfun_free(nb);
    return st == IXJ_OK ? st : stage_err(p, name.col, st, &e);
  }
  if ((st = stage_words(p, stage, w, &n)) != IXJ_OK) return st;
  if (word_is(name, "slice")) {
    ixj_slice_item items[IXJ_MAX_RANK];
    int64_t shape[IXJ_MAX_RANK];
    if (n > rank) return perr(p, w[rank].col, IXJ_ERR_INVALID_ARGUMENT, "slice: %d items for %d dims", n, rank);
    ixj_ixfun_shape(f, shape);
    for (int k = 0; k < n; k++)
      if ((st = slice_item(p, w[k], shape[k], &items[k])) != IXJ_OK) return st;
    st = ixj_ixfun_slice(f, n, items, out, &e);
  } else {
    if ((st = int_list(p, stage, w, n, v)) != IXJ_OK) return st;
    if (word_is(name, "permute")) {
      int perm[IXJ_MAX_RANK];
      for (int k = 0; k < n; k++) perm[k] = v[k] < 0 || v[k] > IXJ_MAX_RANK ? -1 : (int)v[k];
      st = ixj_ixfun_permute(f, n, perm, out, &e);
    } else if (word_is(name, "rotate")) {
      st = ixj_ixfun_rotate(f, n, v, out, &e);
    } else if (word_is(name, "reshape")) {
      st = ixj_ixfun_reshape(f, n, v, out, &e);
    } else {
      st = ixj_ixfun_expand(f, n, v, out, &e);
    }
  }
  return st == IXJ_OK ? st : stage_err(p, name.col, st, &e);
}

static ixj_status parse_pipeline(parser *p, ixj_ixfun **out) {
  ixj_ixfun *f = NULL;
  ixj_status st;
  *out = NULL;
  skip_ws(p);
  if (p->text[p->pos] == '{') {
    st = parse_futhark(p, &f);
  } else {
    word name = next_word(p);
    if (word_is(name, "iota")) st = parse_iota(p, name.col, &f);
    else if (word_is(name, "strided")) st = parse_strided(p, name.col, &f);
    else if (name.len == 0)
      st = perr(p, name.col, IXJ_ERR_PARSE, "expected an index function (iota, strided or {...})");
    else
      st = perr(p, name.col, IXJ_ERR_PARSE, "the first stage must be iota, strided or {...}, not '%.*s'",
                (int)name.len, name.s);
  }
  while (st == IXJ_OK) {
    skip_ws(p);
    char c = p->text[p->pos];
    if (!c || c == ')') break;
    if (c != '|') {
      st = perr(p, column(p->pos), IXJ_ERR_PARSE, "expected '|' between stages");
      break;
    }
    p->pos++;
    word name = next_word(p);
    if (name.len == 0) {
      st = perr(p, name.col, IXJ_ERR_PARSE, "expected a stage after '|'");
      break;
    }
    ixj_ixfun *g = NULL;
    st = apply_stage(p, name, f, &g);
    ixj_ixfun_free(f);
    f = g;
  }
  if (st != IXJ_OK) {
    ixj_ixfun_free(f);
    return st;
  }
  *out = f;
  return IXJ_OK;
}

ixj_status ixj_ixfun_parse(const char *text, ixj_ixfun **out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, text && out);
  parser p = {text, 0, 0, err, IXJ__EXACT_BUDGET};
  ixj_status st;
  *out = NULL;
  st = parse_pipeline(&p, out);
  if (st == IXJ_OK && p.text[p.pos] == ')') {
    ixj_ixfun_free(*out);
    *out = NULL;
    return perr(&p, column(p.pos), IXJ_ERR_PARSE, "unbalanced ')'");
  }
  return st;
}
