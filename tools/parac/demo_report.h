/* The HTML page `parac demo` writes. */
#ifndef PARAC_DEMO_REPORT_H
#define PARAC_DEMO_REPORT_H

#include <stdio.h>

typedef struct demo_entry {
    char op[64];
    char params[512];
    char method[512];      /* the --explain text */
    char device[32];
    double median_ms;      /* operation time, data on the device, synchronised */
    double transfer_ms;    /* upload + download of the data, for comparison */
    char inputs[4][256];   /* preview file names, relative to the report */
    int n_inputs;
    char outputs[4][256];
    int n_outputs;
    char error[512];       /* non-empty when the operation failed */
} demo_entry;

/* Write index.html in `dir` atomically; returns 0 on success. */
int demo_write_report(const char *dir, const demo_entry *entries, int n, const char *device_line,
                      const char *version);

#endif
