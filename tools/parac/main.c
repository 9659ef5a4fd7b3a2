/* parac: the command-line interface.
 *
 *   parac [global options] COMMAND [arguments]
 *
 * COMMAND is a built-in command (info, devices, demo, bench) or any operation
 * of the registry. Global options may appear anywhere on the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: parac [--device D] [-v] [-q] [--progress] COMMAND [ARGS...]\n"
            "       parac --version | --help | COMMAND --help\n\n"
            "GPU image processing. Global options:\n"
            "  --device D     auto (default: CUDA if a GPU is usable, else CPU), cpu, cuda, cuda:N;\n"
            "                 cuda:all or cuda:A,cuda:B: several GPUs where an operation can use them;\n"
            "                 the environment variable PARAC_DEVICE sets the default\n"
            "  -v, --verbose  say which device was chosen and why, and what each step does\n"
            "  -q, --quiet    print only errors\n"
            "  --progress     show a progress bar for long operations (when stderr is a terminal)\n"
            "  --version      print the version and what this build contains\n\n"
            "Commands:\n");
    for (int i = 0; i < cli_command_count; i++)
        fprintf(out, "  %-27s %s\n", cli_commands[i].name, cli_commands[i].summary);
    fprintf(out, "\nOperations (parac OPERATION --help for parameters and methods):\n");
    for (int i = 0; i < parac_op_count(); i++)
        fprintf(out, "  %-27s %s\n", parac_op_at(i)->name, parac_op_at(i)->summary);
    fprintf(out, "\nExit status: 0 success, 1 user error (bad arguments or input), 2 internal error.\n");
}

static void version(void)
{
    printf("parac %s\n", parac_version_string());
    printf("backends: cpu (OpenMP)%s\n", parac_has_cuda() ? ", cuda" : "");
    printf("opencl runtime: %s\n", parac_has_opencl() ? "yes" : "no");
}

/* Take the global options out of argv wherever they are; returns the new argc
 * or -1 on a malformed global option. */
static int take_globals(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) { /* the rest is positional */
            while (i < argc) argv[out++] = argv[i++];
            break;
        }
        if (strcmp(a, "--device") == 0) {
            if (i + 1 >= argc) {
                cli_error("--device needs a value (auto, cpu, cuda, cuda:N)");
                return -1;
            }
            cli.device = argv[++i];
        } else if (strncmp(a, "--device=", 9) == 0) {
            cli.device = a + 9;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            cli.verbose++;
        } else if (strcmp(a, "-vv") == 0) {
            cli.verbose += 2;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            cli.quiet = 1;
        } else if (strcmp(a, "--progress") == 0) {
            cli.progress = 1;
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

/* The device memory the pool still caches goes back before the process
 * ends, so that a leak check (compute-sanitizer) sees every block freed. */
static int finish(int rc)
{
    parac_cuda_pool_trim();
    return rc;
}

int main(int argc, char **argv)
{
    argc = take_globals(argc, argv);
    if (argc < 0) return CLI_USER_ERROR;
    if (argc < 2) {
        usage(stderr);
        return CLI_USER_ERROR;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        if (argc > 2) { /* parac help COMMAND */
            argv[1] = argv[2];
            argv[2] = "--help";
            argc = 3;
            name = argv[1];
        } else {
            usage(stdout);
            return CLI_OK;
        }
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        version();
        return CLI_OK;
    }
    for (int i = 0; i < cli_command_count; i++)
        if (strcmp(name, cli_commands[i].name) == 0) {
            if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
                cli_commands[i].help(stdout);
                return CLI_OK;
            }
            return finish(cli_commands[i].run(argc - 1, argv + 1));
        }
    const parac_op *op = parac_op_find(name);
    if (op) return finish(cli_run_op(op, argc - 1, argv + 1));
    if (name[0] == '-')
        cli_error("unknown option '%s' (see 'parac --help')", name);
    else
        cli_error("unknown command '%s' (see 'parac --help')", name);
    return CLI_USER_ERROR;
}
