/* What `parac demo` writes: index.html (inputs, outputs and timings side by
 * side) and demo.json (the same as data, for tools that compare parac with
 * other libraries on the demo's inputs). */
#ifndef PARAC_DEMO_REPORT_H
#define PARAC_DEMO_REPORT_H

#include <stdio.h>

enum { DEMO_MAX_PARAMS = 16, DEMO_MAX_IMAGES = 4 };

typedef struct demo_entry {
    char op[64];
    char summary[256];
    int n_params;
    char param_names[DEMO_MAX_PARAMS][64];
    char param_values[DEMO_MAX_PARAMS][256];
    char method[512];      /* the --explain text */
    char device[32];
    double median_ms;      /* operation time, data on the device, synchronised */
    double transfer_ms;    /* upload + download of the data, for comparison */
    char inputs[DEMO_MAX_IMAGES][256];  /* preview file names, relative to the report */
    int n_inputs;
    char outputs[DEMO_MAX_IMAGES][256];
    int n_outputs;
    char tables[DEMO_MAX_IMAGES][4096]; /* a table output's first rows as HTML (outputs[k] is its .csv), or "" */
    char error[512];       /* non-empty when the operation failed */
} demo_entry;

/* The data files beside a preview "OP-in0.png": "data/OP-in0.npy". */
void demo_data_name(const char *preview, char *out, size_t size);

/* Write index.html and demo.json in `dir`, each atomically; 0 on success. */
int demo_write_report(const char *dir, const demo_entry *entries, int n, const char *device_line,
                      const char *version);

#endif
