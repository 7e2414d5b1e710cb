/* `ixjit magic D B [--bits 32|64]`: the division sequence chosen for
 * floor(n / D) with 0 <= n <= B. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

static int parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!*s || *s == '-' || *s == '+') return 0;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return 0;
  *out = v;
  return 1;
}

int cmd_magic(int argc, char **argv) {
  uint64_t d = 0, bound = 0, bits = 32;
  int positional = 0;
  for (int k = 0; k < argc; k++) {
    if (!strcmp(argv[k], "--bits")) {
      if (k + 1 >= argc || !parse_u64(argv[k + 1], &bits) || (bits != 32 && bits != 64))
        return cli_error(CLI_USAGE, "--bits takes 32 or 64");
      k++;
    } else if (positional == 0 && parse_u64(argv[k], &d)) {
      positional++;
    } else if (positional == 1 && parse_u64(argv[k], &bound)) {
      positional++;
    } else {
      return cli_error(CLI_USAGE, "unexpected argument '%s' (usage: ixjit magic D B [--bits 32|64])", argv[k]);
    }
  }
  if (positional != 2) return cli_error(CLI_USAGE, "usage: ixjit magic D B [--bits 32|64]");
  ixj_divider dv;
  ixj_error err;
  if (ixj_divider_make(d, bound, (unsigned)bits, &dv, &err) != IXJ_OK) return cli_error(CLI_USAGE, "%s", err.message);
  char m[48];
  ixj_divider_multiplier_text(&dv, m);
  printf("d=%llu bound=%llu bits=%u form=%s multiplier=%s shift=%u\n", (unsigned long long)d,
         (unsigned long long)bound, dv.bits, ixj_div_form_name(dv.form), m, dv.shift);
  return CLI_OK;
}
