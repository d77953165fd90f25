/*
 * commands.h - one handler per subcommand (src/cli/cmd_NAME.c).
 *
 * Each takes the subcommand's own argv (argv[0] is its name), prints one-line
 * errors as "dmlscope NAME: ..." on stderr and returns a status
 * (dmlscope/error.h); main() turns it into the exit code of doc/contract.md
 * (0 success, 1 bad input, 2 usage, 3 I/O or out of memory).
 */
#ifndef DMLSCOPE_CLI_COMMANDS_H
#define DMLSCOPE_CLI_COMMANDS_H

int cmd_analyze(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
