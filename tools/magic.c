/* `ixjit magic D B [--bits 32|64]`: the division sequence chosen for
 * floor(n / D) with 0 <= n <= B. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

static const char usage[] =
    "usage: ixjit magic D B [--bits 32|64]\n"
    "Prints the sequence ixjit uses for floor(n / D) for every 0 <= n <= B: its form (shift, mul,\n"
    "mul_inc or fixup), multiplier and shift (docs/divmod.md).\n"
    "  D                the divisor, 1 .. 2^64 - 1\n"
    "  B                the largest dividend, below 2^BITS\n"
    "  --bits W         the width of the arithmetic: 32 (the default) or 64\n"
    "  -h, --help       this text\n"
    "Exit status: 0 done, 2 bad arguments.\n";

int cmd_magic(int argc, char **argv) {
  static const struct option longopts[] = {{"bits", required_argument, NULL, 'b'}, {NULL, 0, NULL, 0}};
  uint64_t d = 0, bound = 0, bits = 32;
  cli_parser p;
  if (!cli_parser_init(&p, "ixjit magic", argc, argv, usage)) return CLI_FAILED;
  int rc = CLI_OK;
  bool help = false;
  for (int opt; rc == CLI_OK && (opt = cli_next(&p, "", longopts)) != -1;) {
    if (opt == CLI_HELP) help = true;
    else if (opt != 'b') rc = CLI_USAGE; /* reported */
    else if (!cli_count("--bits", p.optarg, 32, 64, &bits)) rc = CLI_USAGE;
    else if (bits != 32 && bits != 64) rc = cli_error(CLI_USAGE, "--bits takes 32 or 64, not %s", p.optarg);
  }
  int n;
  char **pos = cli_positional(&p, &n);
  if (rc == CLI_OK && help) fputs(usage, stdout);
  else if (rc == CLI_OK && n != 2) rc = cli_error(CLI_USAGE, "usage: ixjit magic D B [--bits 32|64]");
  else if (rc == CLI_OK && !cli_count("D", pos[0], 0, UINT64_MAX, &d)) rc = CLI_USAGE;
  else if (rc == CLI_OK && !cli_count("B", pos[1], 0, UINT64_MAX, &bound)) rc = CLI_USAGE;
  cli_parser_free(&p);
  if (rc != CLI_OK || help) return rc;
  ixj_divider dv;
  ixj_error err;
  if (ixj_divider_make(d, bound, (unsigned)bits, &dv, &err) != IXJ_OK) return cli_error(CLI_USAGE, "%s", err.message);
  char m[48];
  ixj_divider_multiplier_text(&dv, m);
  printf("d=%llu bound=%llu bits=%u form=%s multiplier=%s shift=%u\n", (unsigned long long)d,
         (unsigned long long)bound, dv.bits, ixj_div_form_name(dv.form), m, dv.shift);
  return CLI_OK;
}
