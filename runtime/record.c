/* The record-file format, in one place: the writer (ixj_record_format, used
 * when a context records what it compiled) and the reader (ixj_record_parse,
 * used by `ixjit warm`). The format is described in include/ixjit/record.h. */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "textbuf.h"

/* op, elem size, aligned, axis, dst, and the sources */
#define MAX_FIELDS (5 + IXJ_MAX_CAT_INPUTS)

static const char *op_name(ixj_op_kind op) {
  return op == IXJ_OP_COPY ? "copy" : op == IXJ_OP_FILL ? "fill" : op == IXJ_OP_CAT ? "cat" : NULL;
}

static bool parse_int_field(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool ixj_record_is_blank(const char *line) {
  if (!line) return true;
  while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n' || *line == '\v' || *line == '\f') line++;
  return !*line || *line == '#';
}

void ixj_record_clear(ixj_record *r) {
  if (!r) return;
  ixj_ixfun_free(r->dst);
  for (int k = 0; k < r->num_srcs && k < IXJ_MAX_CAT_INPUTS; k++) ixj_ixfun_free(r->srcs[k]);
  memset(r, 0, sizeof *r);
}

/* An index function field: a parse error keeps the parser's message behind
 * `what`, anything else (out of memory) its own status. */
static ixj_status parse_ixfun_field(const char *text, const char *what, ixj_ixfun **out, ixj_error *err) {
  ixj_error perr;
  ixj_status st = ixj_ixfun_parse(text, out, &perr);
  if (st == IXJ_OK) return IXJ_OK;
  return ixj__fail(err, st == IXJ_ERR_NO_MEMORY ? st : IXJ_ERR_PARSE, "%s: %s", what, perr.message);
}

/* The fields of a writable copy of the line: tab-separated, empty ones skipped. */
static ixj_status parse_fields(char *text, ixj_record *r, ixj_error *err) {
  char *field[MAX_FIELDS + 1];
  int n = 0;
  for (char *save, *t = strtok_r(text, "\t", &save); t; t = strtok_r(NULL, "\t", &save)) {
    if (n == MAX_FIELDS + 1) break;
    field[n++] = t;
  }
  long v;
  if (n < 4) return ixj__fail(err, IXJ_ERR_PARSE, "expected tab-separated fields: op, elem size, aligned, ...");
  if (n > MAX_FIELDS) return ixj__fail(err, IXJ_ERR_PARSE, "too many fields: at most %d", MAX_FIELDS);
  if (!strcmp(field[0], "copy")) r->op = IXJ_OP_COPY;
  else if (!strcmp(field[0], "fill")) r->op = IXJ_OP_FILL;
  else if (!strcmp(field[0], "cat")) r->op = IXJ_OP_CAT;
  else return ixj__fail(err, IXJ_ERR_PARSE, "unknown operation '%s'", field[0]);
  if (!parse_int_field(field[1], 1, 16, &v)) return ixj__fail(err, IXJ_ERR_PARSE, "bad element size '%s'", field[1]);
  r->elem_size = (size_t)v;
  if (!parse_int_field(field[2], 0, 1, &v)) return ixj__fail(err, IXJ_ERR_PARSE, "aligned must be 0 or 1");
  r->aligned = v;
  int at = 3;
  if (r->op == IXJ_OP_CAT) {
    if (!parse_int_field(field[3], 0, IXJ_MAX_RANK - 1, &v)) return ixj__fail(err, IXJ_ERR_PARSE, "bad axis '%s'", field[3]);
    r->axis = (int)v;
    at = 4;
  }
  if (at >= n) return ixj__fail(err, IXJ_ERR_PARSE, "missing the destination");
  int found = n - at - 1, want = r->op == IXJ_OP_COPY ? 1 : r->op == IXJ_OP_FILL ? 0 : -1;
  if ((want >= 0 && found != want) || (want < 0 && found < 1))
    return ixj__fail(err, IXJ_ERR_PARSE, "%s takes %s, found %d", field[0],
                     want == 1 ? "one source" : want == 0 ? "no source" : "one or more sources", found);
  ixj_status st = parse_ixfun_field(field[at], "destination", &r->dst, err);
  for (int k = 0; st == IXJ_OK && k < found; k++) {
    char what[32];
    snprintf(what, sizeof what, "source %d", k + 1);
    st = parse_ixfun_field(field[at + 1 + k], what, &r->srcs[k], err);
    if (st == IXJ_OK) r->num_srcs = k + 1; /* what ixj_record_clear frees */
  }
  return st;
}

ixj_status ixj_record_parse(const char *line, ixj_record *out, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, line && out);
  memset(out, 0, sizeof *out);
  size_t len = strlen(line);
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
  char *text = malloc(len + 1);
  if (!text) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  memcpy(text, line, len);
  text[len] = '\0';
  ixj_status st = parse_fields(text, out, err);
  free(text);
  if (st != IXJ_OK) ixj_record_clear(out);
  return st;
}

/* An index function as a field: *text malloc'ed (also on an error). */
static ixj_status field_text(const ixj_ixfun *f, char **text, ixj_error *err) {
  if (!(*text = ixj_ixfun_to_string(f))) return ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
  IXJ_ASSERT(err, !strpbrk(*text, "\t\n\r")); /* the printer writes one line: the fields stay apart */
  return IXJ_OK;
}

/* The line into b (snprintf-style: a first pass with no buffer sizes it). */
static void put_line(textbuf *b, const char *name, ixj_op_kind op, size_t elem_size, bool aligned, int axis,
                     char *const *texts, int n) {
  ixj__textbuf_put(b, "%s\t%zu\t%d", name, elem_size, aligned ? 1 : 0);
  if (op == IXJ_OP_CAT) ixj__textbuf_put(b, "\t%d", axis);
  for (int k = 0; k < n; k++) ixj__textbuf_put(b, "\t%s", texts[k]);
  ixj__textbuf_put(b, "\n");
}

ixj_status ixj_record_format(ixj_op_kind op, size_t elem_size, bool aligned, int axis, const ixj_ixfun *dst,
                             int num_srcs, const ixj_ixfun *const *srcs, char **line, ixj_error *err) {
  IXJ_REQUIRE_ARGS(err, dst && line && (srcs || num_srcs == 0));
  *line = NULL;
  const char *name = op_name(op);
  if (!name) return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "unknown operation %d", (int)op);
  int want = op == IXJ_OP_COPY ? 1 : 0;
  if (op == IXJ_OP_CAT ? num_srcs < 1 || num_srcs > IXJ_MAX_CAT_INPUTS : num_srcs != want)
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "%s takes %s sources, not %d", name,
                     op == IXJ_OP_CAT ? "1..64" : want ? "1" : "0", num_srcs);
  if (op == IXJ_OP_CAT && (axis < 0 || axis >= IXJ_MAX_RANK))
    return ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "cat axis %d is outside 0..%d", axis, IXJ_MAX_RANK - 1);
  char *texts[1 + IXJ_MAX_CAT_INPUTS] = {NULL};
  int n = 1 + num_srcs;
  ixj_status st = IXJ_OK;
  for (int k = 0; k < n && st == IXJ_OK; k++) {
    const ixj_ixfun *f = k ? srcs[k - 1] : dst;
    st = f ? field_text(f, &texts[k], err) : ixj__fail(err, IXJ_ERR_INVALID_ARGUMENT, "source %d: NULL index function", k);
  }
  if (st == IXJ_OK) {
    textbuf size = {NULL, 0, 0};
    put_line(&size, name, op, elem_size, aligned, axis, texts, n);
    textbuf b = {malloc(size.len + 1), size.len + 1, 0};
    if (!b.buf) st = ixj__fail(err, IXJ_ERR_NO_MEMORY, "out of memory");
    else put_line(&b, name, op, elem_size, aligned, axis, texts, n);
    *line = b.buf;
  }
  for (int k = 0; k < n; k++) free(texts[k]);
  return st;
}

ixj_status ixj__record_append(int fd, ixj_op_kind op, size_t elem_size, bool aligned, int axis, const ixj_ixfun *dst,
                              int num_srcs, const ixj_ixfun *const *srcs, ixj_error *err) {
  char *line;
  ixj_status st = ixj_record_format(op, elem_size, aligned, axis, dst, num_srcs, srcs, &line, err);
  if (st != IXJ_OK) return st;
  size_t len = strlen(line);
  ssize_t w;
  do w = write(fd, line, len);
  while (w < 0 && errno == EINTR);
  int saved = errno;
  free(line);
  if (w < 0) return ixj__fail(err, IXJ_ERR_IO, "cannot append to the record file: %s", strerror(saved));
  if ((size_t)w != len) return ixj__fail(err, IXJ_ERR_IO, "cannot append to the record file: a short write");
  return IXJ_OK;
}
