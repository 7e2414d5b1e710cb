/* The ixjit command-line tool: a thin layer over the C API. main picks the
 * subcommand (commands.h); each lives in its own file:
 *
 *   ixjit eval|show IXFUN       eval.c     the points; the canonical form
 *   ixjit magic D B [--bits W]  magic.c    the division sequence for d = D, n <= B
 *   ixjit emit|run OP ...       run.c      an operation's kernel text; running it
 *   ixjit warm FILE...          warm.c     compiling recorded signatures into the disk cache
 *   ixjit cache ...             cache.c    the disk cache directory
 *   ixjit demo                  demo.c     the main job, verified and timed
 *   ixjit --version             here       the versions and the host target
 * Every command parses its options with getopt_long (cli.h) and has --help. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "ixjit/ixjit.h"

static int usage(FILE *to, int status) {
  fputs("usage: ixjit COMMAND [options] ...   (ixjit COMMAND --help lists a command's options)\n"
        "       ixjit eval [--inline-errors] IXFUN|-       the shape and every point's flat offset\n"
        "       ixjit show [--inline-errors] IXFUN|-       the canonical (Futhark) form\n"
        "       ixjit magic D B [--bits 32|64]             the division sequence for n / D, n <= B\n"
        "       ixjit emit copy|fill|cat --target llvm|cuda[:sm_XY]|ptx[:sm_XY]|cubin:sm_XY --dst IXFUN\n"
        "                 [--src IXFUN]... [--axis K] --elem-size E [--out F]\n"
        "       ixjit run copy|fill|cat [--target cpu|cuda] --dst IXFUN [--src IXFUN]... [--src-file F]...\n"
        "                 [--dst-file F] [--out F] [--value HEX] [--axis K] --elem-size E [--check] [--json]\n"
        "       ixjit warm [--cache DIR] [--target cpu|cpu:NAME[+F,...]|cuda:sm_XY]... [-j N] [--json] FILE...\n"
        "       ixjit cache stats|ls|verify|prune|clear [--cache DIR] ...   (ixjit cache --help)\n"
        "       ixjit bench [SUITE] [--filter RE] [--threads LIST] [--size-scale S] [--json F] [--baseline F]\n"
        "                 [--plot F.svg] [--micro] ...   (ixjit bench --help lists every option)\n"
        "       ixjit demo                                 seven cases compiled, run, verified, timed\n"
        "       ixjit --version                            ixjit's, LLVM's and NVRTC's versions, the host target\n"
        "       ixjit --help\n"
        "IXFUN is a pipeline such as 'iota 8 6 | permute 1 0 | slice 1:5 ::2' (see docs/syntax.md);\n"
        "several arguments are joined with spaces; '-' reads one IXFUN per line from standard input.\n"
        "Options take --opt=VALUE or --opt VALUE. Exit status: 0 done, 1 the job failed, 2 bad arguments.\n",
        to);
  return status;
}

/* `ixjit --version`: what a bug report needs. */
static int version(void) {
  ixj_version_info v;
  ixj_version_get(&v);
  printf("ixjit %s\n", v.ixjit);
  printf("LLVM %s (built against %s)\n", v.llvm_runtime, v.llvm_built);
  if (*v.nvrtc) printf("NVRTC %s (loaded at run time)\n", v.nvrtc);
  else printf("NVRTC: not available (%s)\n", v.nvrtc_problem);
  printf("host target: %s\n", *v.host_target ? v.host_target : "unknown");
  printf("host CPU: %s\n", *v.host_cpu ? v.host_cpu : "unknown");
  return ferror(stdout) ? cli_error(CLI_FAILED, "cannot write the output") : CLI_OK;
}

/* The command `cmd` with its arguments; -1 when there is none of that name. */
static int dispatch(const char *cmd, int argc, char **argv) {
  static const struct {
    const char *name;
    int (*fn)(int, char **);
  } commands[] = {{"eval", cmd_eval}, {"show", cmd_show}, {"magic", cmd_magic}, {"demo", cmd_demo},
                  {"emit", cmd_emit}, {"run", cmd_run},   {"warm", cmd_warm},   {"cache", cmd_cache},
                  {"bench", cmd_bench}};
  for (size_t k = 0; k < sizeof commands / sizeof *commands; k++)
    if (!strcmp(cmd, commands[k].name)) return commands[k].fn(argc, argv);
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_error(CLI_USAGE, "missing command");
    return usage(stderr, CLI_USAGE);
  }
  const char *cmd = argv[1];
  int rc = dispatch(cmd, argc - 2, argv + 2);
  if (rc >= 0) return rc;
  if (!strcmp(cmd, "help") && argc == 3) { /* `ixjit help run` is `ixjit run --help` */
    char *help[] = {(char *)"--help", NULL};
    if ((rc = dispatch(argv[2], 1, help)) >= 0) return rc;
  }
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) return usage(stdout, CLI_OK);
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) return version();
  cli_error(CLI_USAGE, "unknown command '%s'", cmd);
  return usage(stderr, CLI_USAGE);
}
