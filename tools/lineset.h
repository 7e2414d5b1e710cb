/* A set of text lines: open addressing over XXH3 hashes, so adding n lines
 * costs O(n) on average (`ixjit warm` de-duplicates record files with it;
 * recordings from many processes repeat lines). */
#ifndef IXJIT_TOOLS_LINESET_H
#define IXJIT_TOOLS_LINESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct line_set {
  char **lines;     /* cap slots, NULL when free; each a copy owned by the set */
  uint64_t *hashes; /* the hash of each occupied slot, compared before the text */
  size_t cap, count;
} line_set;

/* An empty set (no memory until the first line). */
void line_set_init(line_set *s);
/* Whether line is in the set. */
bool line_set_contains(const line_set *s, const char *line);
/* Adds a copy of line: 1 when it was new, 0 when it was already there, -1
 * when out of memory (the set is unchanged). */
int line_set_add(line_set *s, const char *line);
/* Frees every line and the table; the set is empty again. */
void line_set_free(line_set *s);

#endif
