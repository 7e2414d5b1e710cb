/* `ixjit demo`: the algebra and the bound-aware division on a handful of
 * real cases, each verified: the printed form parses back to the same index
 * function, and every linear index of each shape is unranked with the chosen
 * magic sequences and checked against hardware division. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const cases[] = {
    "iota 4 6 | permute 1 0",
    "iota 8 6 | permute 1 0 | slice 1:5 ::2 | rotate 1 0",
    "iota 10 10 | slice ::-1 3:9:2",
    "iota 5 7 | rotate 2 -3 | slice 1:4",
    "iota 4 6 | permute 1 0 | reshape 2 12",
    "iota 24 | reshape 2 3 4 | permute 2 0 1 | reshape 4 6 | slice 1:3",
    "iota 3 1 | expand 2 3 4",
    "iota 6 4 | rebase (iota 24 | slice ::-1)",
};

/* Unranks every n < count of `shape` with ixj_digit and checks the digits. */
static int check_unrank(int rank, const int64_t *shape, int64_t count, int *cost, int *forms) {
  ixj_digit dg[IXJ_MAX_RANK];
  uint64_t inner = 1;
  *cost = 0;
  if (count == 0) return 1;
  for (int k = rank - 1; k >= 0; k--) {
    if (ixj_digit_make(inner, (uint64_t)shape[k], (uint64_t)count - 1, 32, &dg[k], NULL) != IXJ_OK) return 0;
    *cost += dg[k].cost;
    forms[k] = dg[k].form;
    inner *= (uint64_t)shape[k];
  }
  for (uint64_t n = 0; n < (uint64_t)count; n++) {
    uint64_t rest = n;
    for (int k = rank - 1; k >= 0; k--) {
      if (ixj_digit_apply(&dg[k], n) != rest % (uint64_t)shape[k]) return 0;
      rest /= (uint64_t)shape[k];
    }
  }
  return 1;
}

int cmd_demo(int argc, char **argv) {
  static const char *form_names[] = {"quot", "divmod", "direct"};
  int failures = 0;
  (void)argv;
  if (argc) return cli_error(CLI_USAGE, "demo takes no arguments");
  printf("ixjit %s demo: index-function algebra and bound-aware division\n\n", IXJIT_VERSION_STRING);
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    ixj_ixfun *f = NULL, *back = NULL;
    ixj_error err;
    if (ixj_ixfun_parse(cases[c], &f, &err) != IXJ_OK) {
      printf("FAIL %s: %s\n", cases[c], err.message);
      failures++;
      continue;
    }
    char *text = ixj_ixfun_to_string(f);
    int round_trip = text && ixj_ixfun_parse(text, &back, NULL) == IXJ_OK && ixj_ixfun_equal(f, back);
    int rank = ixj_ixfun_rank(f), forms[IXJ_MAX_RANK], cost;
    int64_t shape[IXJ_MAX_RANK], idx[IXJ_MAX_RANK] = {0}, count = ixj_ixfun_num_points(f);
    ixj_ixfun_shape(f, shape);
    int unrank_ok = check_unrank(rank, shape, count, &cost, forms);
    ixj_offset_range r = ixj_ixfun_offset_range(f);

    printf("%s\n  = %s\n  shape", cases[c], text ? text : "(out of memory)");
    for (int k = 0; k < rank; k++) printf(" %lld", (long long)shape[k]);
    printf(", %d LMAD%s, offsets %lld..%lld, %scontiguous%s\n  points:", ixj_ixfun_num_lmads(f),
           ixj_ixfun_num_lmads(f) > 1 ? "s" : "", (long long)r.min, (long long)r.max,
           ixj_ixfun_is_contiguous(f) ? "" : "not ", ixj_ixfun_is_linear(f) ? ", linear" : "");
    for (int64_t n = 0; n < count && n < 16; n++) {
      int64_t off;
      ixj_ixfun_index(f, rank, idx, &off, NULL);
      printf(" %lld", (long long)off);
      for (int k = rank - 1; k >= 0 && ++idx[k] == shape[k]; k--) idx[k] = 0;
    }
    printf("%s\n  unrank (32-bit, bound %lld):", count > 16 ? " ..." : "", (long long)count - 1);
    for (int k = 0; k < rank; k++) printf(" %s", form_names[forms[k]]);
    printf(", %d ops; round trip %s, unrank %s\n\n", cost, round_trip ? "ok" : "FAILED",
           unrank_ok ? "verified" : "FAILED");
    failures += !round_trip + !unrank_ok;
    free(text);
    ixj_ixfun_free(back);
    ixj_ixfun_free(f);
  }

  printf("%-12s %-12s %-8s %-22s %s\n", "divisor", "bound", "form", "multiplier", "shift");
  static const uint64_t divs[][2] = {{7, 100000000}, {7, 4294967295u}, {12, 1u << 20}, {641, 2147483647u},
                                     {1000, 4294967294u}, {64, 1000}};
  for (size_t k = 0; k < sizeof divs / sizeof *divs; k++) {
    ixj_divider dv;
    char m[48];
    ixj_divider_make(divs[k][0], divs[k][1], 32, &dv, NULL);
    ixj_divider_multiplier_text(&dv, m);
    int ok = 1;
    for (uint64_t n = divs[k][1] > (1u << 22) ? divs[k][1] - (1u << 22) : 0; n <= divs[k][1]; n++)
      ok &= ixj_divider_apply(&dv, n) == n / divs[k][0];
    printf("%-12llu %-12llu %-8s %-22s %u%s\n", (unsigned long long)divs[k][0], (unsigned long long)divs[k][1],
           ixj_div_form_name(dv.form), m, dv.shift, ok ? "" : "  FAILED");
    failures += !ok;
  }
  printf("\n%s\n", failures ? "demo: FAILED" : "demo: every case verified");
  return failures ? CLI_FAILED : CLI_OK;
}
