/* parac_table_write: an operation's table (an f64 image, one row per record,
 * one column per field) as CSV, JSON or NPY, written atomically like images. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "io_internal.h"
#include "parac/io.h"

typedef enum table_format { TABLE_CSV, TABLE_JSON, TABLE_NPY } table_format;

typedef struct table_job {
    const parac_image *table; /* host */
    int64_t rows;
    const char *const *columns;
    int n_columns;
    table_format format;
} table_job;

static double cell(const table_job *j, int64_t r, int c)
{
    return ((const double *)parac_image_at(j->table, 0, r, 0))[c];
}

/* The shortest text that reads back as the same double; JSON has no NaN or
 * infinities, so those are null there. */
static void number(FILE *f, double v, int json)
{
    if (!isfinite(v)) {
        fputs(json ? "null" : isnan(v) ? "nan" : v > 0 ? "inf" : "-inf", f);
        return;
    }
    char text[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    fputs(text, f);
}

static parac_status write_csv(FILE *f, const table_job *j)
{
    for (int c = 0; c < j->n_columns; c++) fprintf(f, "%s%s", c ? "," : "", j->columns[c]);
    fputc('\n', f);
    for (int64_t r = 0; r < j->rows; r++) {
        for (int c = 0; c < j->n_columns; c++) {
            if (c) fputc(',', f);
            number(f, cell(j, r, c), 0);
        }
        fputc('\n', f);
    }
    return PARAC_OK;
}

/* An object of columns, as Python's regionprops_table returns them. */
static parac_status write_json(FILE *f, const table_job *j)
{
    fputs("{", f);
    for (int c = 0; c < j->n_columns; c++) {
        fprintf(f, "%s\n  \"%s\": [", c ? "," : "", j->columns[c]);
        for (int64_t r = 0; r < j->rows; r++) {
            if (r) fputs(", ", f);
            number(f, cell(j, r, c), 1);
        }
        fputs("]", f);
    }
    fputs("\n}\n", f);
    return PARAC_OK;
}

/* A rows x columns float64 array (the names are the documented order). */
static parac_status write_npy(FILE *f, const table_job *j)
{
    char dict[128];
    const int len = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': (%lld, %d), }",
                             (long long)j->rows, j->n_columns);
    const size_t padded = (10 + (size_t)len + 1 + 63) / 64 * 64;
    unsigned char head[192];
    memcpy(head, "\x93NUMPY\x01\x00", 8);
    head[8] = (unsigned char)((padded - 10) & 0xFF);
    head[9] = (unsigned char)((padded - 10) >> 8);
    memcpy(head + 10, dict, (size_t)len);
    memset(head + 10 + len, ' ', padded - 11 - (size_t)len);
    head[padded - 1] = '\n';
    PARAC_TRY(parac__io_write_all(f, head, padded));
    for (int64_t r = 0; r < j->rows; r++) {
        double row[64];
        for (int c = 0; c < j->n_columns; c++) {
            const double v = cell(j, r, c);
            if (parac__host_is_little_endian()) {
                row[c] = v;
            } else {
                unsigned char b[8], s[8];
                memcpy(b, &v, 8);
                for (int k = 0; k < 8; k++) s[k] = b[7 - k];
                memcpy(&row[c], s, 8);
            }
        }
        PARAC_TRY(parac__io_write_all(f, row, sizeof(double) * (size_t)j->n_columns));
    }
    return PARAC_OK;
}

static parac_status write_table(FILE *file, int fd, const void *user)
{
    (void)fd;
    const table_job *j = user;
    const parac_status st = j->format == TABLE_CSV ? write_csv(file, j) : j->format == TABLE_JSON ? write_json(file, j)
                                                                                                   : write_npy(file, j);
    if (st == PARAC_OK && ferror(file)) return parac__fail(PARAC_ERR_IO, "write failed");
    return st;
}

parac_status parac_table_write(const char *path, const parac_image *table, int64_t rows, const char *const *columns,
                               int n_columns)
{
    if (!path || !table || !columns) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "NULL path, table or columns");
    if (table->dtype != PARAC_F64 || table->channels != 1 || table->depth != 1 || table->width != n_columns ||
        n_columns < 1 || n_columns > 64 || rows < 0 || rows > table->height)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "writing '%s': not a table of %d column(s) and %lld row(s)",
                           path, n_columns, (long long)rows);
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && slash && dot < slash) dot = NULL;
    table_job j = {table, rows, columns, n_columns, TABLE_CSV};
    if (dot && strcasecmp(dot, ".csv") == 0) j.format = TABLE_CSV;
    else if (dot && strcasecmp(dot, ".json") == 0) j.format = TABLE_JSON;
    else if (dot && strcasecmp(dot, ".npy") == 0) j.format = TABLE_NPY;
    else
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "writing '%s': a table is written as .csv, .json or .npy",
                           path);
    parac_image *host = NULL;
    if (table->memory == PARAC_MEMORY_CUDA) {
        const parac_status st = parac_image_download(&host, table, 0, NULL);
        if (st != PARAC_OK) return parac__wrap(st, "writing '%s'", path);
        j.table = host;
    }
    const parac_status st = parac__io_write_atomic(path, write_table, &j);
    parac_image_destroy(host);
    if (st != PARAC_OK) return parac__wrap(st, "writing the table '%s'", path);
    return PARAC_OK;
}
