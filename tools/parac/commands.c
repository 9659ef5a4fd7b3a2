/* The built-in commands. Registry operations are added automatically. */
#include "cli.h"

int cmd_info(int argc, char **argv);
void cmd_info_help(FILE *out);
int cmd_devices(int argc, char **argv);
void cmd_devices_help(FILE *out);
int cmd_demo(int argc, char **argv);
void cmd_demo_help(FILE *out);
int cmd_bench(int argc, char **argv);
void cmd_bench_help(FILE *out);
int cmd_run(int argc, char **argv);
void cmd_run_help(FILE *out);

const cli_command cli_commands[] = {
    {"info", "print format, size, dtype and statistics of image files", cmd_info, cmd_info_help},
    {"devices", "list CPU cores, CUDA GPUs and OpenCL platforms", cmd_devices, cmd_devices_help},
    {"demo", "run every operation on synthetic inputs and write an HTML report", cmd_demo,
     cmd_demo_help},
    {"bench", "time operations on the current device", cmd_bench, cmd_bench_help},
    {"run", "compile a ParaC program and apply it to an image", cmd_run, cmd_run_help},
};

const int cli_command_count = sizeof cli_commands / sizeof cli_commands[0];
