/* Messages, exit codes, the progress bar and the context of the CLI. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

cli_globals cli;

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("parac: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_info(const char *fmt, ...)
{
    if (cli.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_debug(const char *fmt, ...)
{
    if (cli.verbose < 1 || cli.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("parac: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_fail(parac_status st, const char *what)
{
    const char *msg = parac_error_message();
    if (what && *what)
        cli_error("%s: %s", what, *msg ? msg : parac_status_string(st));
    else
        cli_error("%s", *msg ? msg : parac_status_string(st));
    switch (st) {
    case PARAC_OK: return CLI_OK;
    case PARAC_ERR_CUDA:
    case PARAC_ERR_OPENCL:
    case PARAC_ERR_INTERNAL: return CLI_INTERNAL_ERROR;
    default: return CLI_USER_ERROR;
    }
}

/* A one-line bar, redrawn at most once per percent. */
static int progress_bar(void *user, double fraction)
{
    int *last = user;
    int pct = (int)(fraction * 100.0);
    if (pct == *last) return 0;
    *last = pct;
    int filled = pct * 40 / 100;
    fprintf(stderr, "\r[%.*s%*s] %3d%%", filled, "########################################",
            40 - filled, "", pct);
    if (pct >= 100) fputc('\n', stderr);
    fflush(stderr);
    return 0;
}

parac_status cli_context(parac_context **ctx)
{
    static int last_pct = -1;
    parac_status st = parac_context_create(ctx, cli.device);
    if (st != PARAC_OK) return st;
    cli_debug("device %s: %s", parac_context_device(*ctx), parac_context_reason(*ctx));
    if (cli.progress && !cli.quiet && isatty(fileno(stderr)))
        parac_context_set_progress(*ctx, progress_bar, &last_pct);
    return PARAC_OK;
}
