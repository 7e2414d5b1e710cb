/* The bench's buffers and their pages. NumPy puts every array of 4 MiB and
 * more on transparent huge pages (madvise(MADV_HUGEPAGE), its default on
 * Linux), so its peer ran on huge pages while ixjit, the ceiling and the
 * generic kernel ran on 4 KiB ones. `--pages` chooses one policy for
 * everyone: ixjit's buffers, the ceiling's and the generic kernel's here, and
 * the peers' through IXJIT_BENCH_PAGES (NumPy's switch, PyTorch's
 * THP_MEM_ALLOC_ENABLE, the oneDNN runner's advice). A transpose touches a
 * page per row of each tile, the case the page size could move; on the
 * development VM it moved nothing beyond the noise (docs/benchmarks.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench.h"

#define HUGE_FROM ((size_t)4 << 20)  /* NumPy's threshold */
#define HUGE_ALIGN ((size_t)2 << 20) /* an x86-64 huge page */

void *bench_buffer(size_t bytes, int byte, bool huge_pages) {
  size_t n = bytes ? (bytes + 63) / 64 * 64 : 64;
  void *p;
  if (huge_pages && n >= HUGE_FROM) {
    n = (n + HUGE_ALIGN - 1) / HUGE_ALIGN * HUGE_ALIGN;
    p = aligned_alloc(HUGE_ALIGN, n);
    /* Advice only: where THP is off (or madvise refuses), the pages stay small. */
    if (p) (void)madvise(p, n, MADV_HUGEPAGE);
  } else {
    p = aligned_alloc(64, n);
  }
  if (p) memset(p, byte, n); /* every page touched: no repetition pays page faults */
  return p;
}

/* The bracketed word of a sysfs THP setting ("always [madvise] never"), or "". */
static void thp_mode(const char *path, char *out, size_t size) {
  char line[128] = "";
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(line, sizeof line, f)) {
    char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
    if (open && close) snprintf(out, size, "%.*s", (int)(close - open - 1), open + 1);
  }
  fclose(f);
}

void bench_pages_describe(bool huge_pages, char *out, size_t size) {
  char mode[32];
  thp_mode("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof mode);
  if (!huge_pages)
    snprintf(out, size, "small: 4 KiB pages, no advice (THP %s)", mode[0] ? mode : "unknown");
  else if (!strcmp(mode, "always") || !strcmp(mode, "madvise"))
    snprintf(out, size, "huge: buffers of 4 MiB and more advised onto huge pages, as NumPy does (THP %s)", mode);
  else
    snprintf(out, size, "huge asked, but THP is %s here: 4 KiB pages", mode[0] ? mode : "unavailable");
}

void bench_pages_export(bool huge_pages) { setenv("IXJIT_BENCH_PAGES", huge_pages ? "huge" : "small", 1); }
