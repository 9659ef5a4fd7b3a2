/* The parac command-line program: shared declarations.
 *
 * A built-in command (info, devices, demo, ...) is a function taking the
 * arguments after its name; every registry operation is also a command,
 * handled by cli_run_op(). Exit codes: 0 success, 1 user error (bad
 * arguments, unreadable input, ...), 2 internal error. */
#ifndef PARAC_CLI_H
#define PARAC_CLI_H

#include <stdio.h>

#include "parac/parac.h"

enum { CLI_OK = 0, CLI_USER_ERROR = 1, CLI_INTERNAL_ERROR = 2 };

typedef struct cli_globals {
    const char *device;  /* --device, or NULL */
    int verbose;         /* -v count */
    int quiet;           /* -q */
    int progress;        /* --progress (shown only when stderr is a terminal) */
} cli_globals;

extern cli_globals cli;

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*help)(FILE *out);
} cli_command;

/* The built-in commands, in tools/parac/commands.c. */
extern const cli_command cli_commands[];
extern const int cli_command_count;

/* Messages: errors always go to stderr; info only without -q; debug with -v. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Map a failed status to an exit code after printing "parac: WHAT: message". */
int cli_fail(parac_status st, const char *what);

/* A context for the chosen device (with the progress bar attached when asked);
 * prints the choice with -v. */
parac_status cli_context(parac_context **ctx);

/* Run registry operation `op` as a command. */
int cli_run_op(const parac_op *op, int argc, char **argv);
void cli_op_help(const parac_op *op, FILE *out);

#endif
