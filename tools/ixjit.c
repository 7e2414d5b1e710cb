/* The ixjit command-line tool: a thin layer over the C API. main picks the
 * subcommand (commands.h); each lives in its own file:
 *
 *   ixjit eval|show IXFUN       eval.c     the points; the canonical form
 *   ixjit magic D B [--bits W]  magic.c    the division sequence for d = D, n <= B
 *   ixjit emit|run OP ...       run.c      an operation's kernel text; running it
 *   ixjit warm FILE...          warm.c     compiling recorded signatures into the disk cache
 *   ixjit cache ...             cache.c    the disk cache directory
 *   ixjit demo                  demo.c     the main job, verified and timed
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

static int usage(FILE *to, int status) {
  fputs("usage: ixjit eval IXFUN\n"
        "       ixjit show IXFUN\n"
        "       ixjit magic D B [--bits 32|64]\n"
        "       ixjit emit copy|fill|cat --target llvm|cuda[:sm_XY]|ptx[:sm_XY]|cubin:sm_XY --dst IXFUN\n"
        "                 [--src IXFUN]... [--axis K] --elem-size E [--out F]\n"
        "       ixjit run copy|fill|cat [--target cuda] --dst IXFUN [--src IXFUN]... [--src-file F]...\n"
        "                 [--dst-file F] [--out F] [--value HEX] [--axis K] --elem-size E [--check]\n"
        "       ixjit warm [--cache DIR] [--target cpu|cuda:sm_XY]... [-j N] FILE...\n"
        "       ixjit cache stats|ls|verify|prune|clear [--cache DIR]\n"
        "       ixjit bench [SUITE] [--filter RE] [--threads LIST] [--size-scale S] [--json F] [--baseline F]\n"
        "                 [--plot F.svg] [--micro] ...   (ixjit bench --help lists every option)\n"
        "       ixjit demo\n"
        "IXFUN is a pipeline such as 'iota 8 6 | permute 1 0 | slice 1:5 ::2' (see docs/syntax.md);\n"
        "several arguments are joined with spaces; '-' reads one IXFUN per line from standard input.\n",
        to);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_error(CLI_USAGE, "missing command");
    return usage(stderr, CLI_USAGE);
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "eval")) return cmd_eval(argc - 2, argv + 2);
  if (!strcmp(cmd, "show")) return cmd_show(argc - 2, argv + 2);
  if (!strcmp(cmd, "magic")) return cmd_magic(argc - 2, argv + 2);
  if (!strcmp(cmd, "demo")) return cmd_demo(argc - 2, argv + 2);
  if (!strcmp(cmd, "emit")) return cmd_emit(argc - 2, argv + 2);
  if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
  if (!strcmp(cmd, "warm")) return cmd_warm(argc - 2, argv + 2);
  if (!strcmp(cmd, "cache")) return cmd_cache(argc - 2, argv + 2);
  if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) return usage(stdout, CLI_OK);
  if (!strcmp(cmd, "--version")) {
    puts("ixjit " IXJIT_VERSION_STRING);
    return CLI_OK;
  }
  cli_error(CLI_USAGE, "unknown command '%s'", cmd);
  return usage(stderr, CLI_USAGE);
}
