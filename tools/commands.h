/* The CLI's subcommands, each `cmd_NAME(argc, argv)` with the arguments after
 * the command's name; each returns an exit status (cli.h). main (ixjit.c)
 * dispatches to them. */
#ifndef IXJIT_TOOLS_COMMANDS_H
#define IXJIT_TOOLS_COMMANDS_H

int cmd_eval(int argc, char **argv);  /* eval.c */
int cmd_show(int argc, char **argv);  /* eval.c */
int cmd_magic(int argc, char **argv); /* magic.c */
int cmd_demo(int argc, char **argv);  /* demo.c */
int cmd_emit(int argc, char **argv);  /* run.c */
int cmd_run(int argc, char **argv);   /* run.c */
int cmd_warm(int argc, char **argv);  /* warm.c */
int cmd_cache(int argc, char **argv); /* cache.c */

#endif
