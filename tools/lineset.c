/* The line set (lineset.h): linear probing in a power-of-two table that is
 * never more than half full. */
#include "lineset.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

void line_set_init(line_set *s) { memset(s, 0, sizeof *s); }

/* The slot of line: where it is, or the free slot where it would go. */
static size_t slot_of(const line_set *s, uint64_t h, const char *line) {
  size_t mask = s->cap - 1, k = (size_t)h & mask;
  while (s->lines[k] && (s->hashes[k] != h || strcmp(s->lines[k], line))) k = (k + 1) & mask;
  return k;
}

/* Doubles the table (or makes the first one) and re-inserts every line. */
static int grow(line_set *s) {
  size_t cap = s->cap ? 2 * s->cap : 64;
  line_set bigger = {calloc(cap, sizeof(char *)), calloc(cap, sizeof(uint64_t)), cap, s->count};
  if (!bigger.lines || !bigger.hashes) {
    free(bigger.lines);
    free(bigger.hashes);
    return -1;
  }
  for (size_t k = 0; k < s->cap; k++) {
    if (!s->lines[k]) continue;
    size_t to = slot_of(&bigger, s->hashes[k], s->lines[k]);
    bigger.lines[to] = s->lines[k];
    bigger.hashes[to] = s->hashes[k];
  }
  free(s->lines);
  free(s->hashes);
  *s = bigger;
  return 0;
}

bool line_set_contains(const line_set *s, const char *line) {
  return s->cap && s->lines[slot_of(s, XXH3_64bits(line, strlen(line)), line)];
}

int line_set_add(line_set *s, const char *line) {
  if (2 * (s->count + 1) > s->cap && grow(s) != 0) return -1;
  size_t len = strlen(line);
  uint64_t h = XXH3_64bits(line, len);
  size_t k = slot_of(s, h, line);
  if (s->lines[k]) return 0;
  char *copy = malloc(len + 1);
  if (!copy) return -1;
  memcpy(copy, line, len + 1);
  s->lines[k] = copy;
  s->hashes[k] = h;
  s->count++;
  return 1;
}

void line_set_free(line_set *s) {
  for (size_t k = 0; k < s->cap; k++) free(s->lines[k]);
  free(s->lines);
  free(s->hashes);
  line_set_init(s);
}
