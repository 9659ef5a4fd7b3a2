/* The skeleton as a graph file: JSON (nodes and edges), OBJ (polylines for
 * mesh viewers) or SWC (neuroscience tools), in physical units (voxel
 * position times spacing). Written to a temporary name, then renamed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "skel_graph_io.h"

static const char *ext(const char *path)
{
    const char *d = strrchr(path, '.');
    return d ? d + 1 : "";
}

static void put_point(FILE *f, const double *p, const double sp[3], const char *sep)
{
    fprintf(f, "%.4f%s%.4f%s%.4f", p[0] * sp[0], sep, p[1] * sp[1], sep, p[2] * sp[2]);
}

static const char *kind_name(int k)
{
    static const char *names[] = {"attracting", "repelling", "saddle", "junction", "end"};
    return k >= 0 && k <= PARAC__SKEL_END ? names[k] : "unknown";
}

static void write_json(FILE *f, const parac__skel_graph *g, const double sp[3])
{
    const parac__skel_critical *cp = g->node;
    const int64_t n_cp = g->n_node;
    fprintf(f, "{\n  \"nodes\": [");
    for (int64_t i = 0; i < n_cp; i++) {
        fprintf(f, "%s\n    {\"id\": %lld, \"kind\": \"%s\", \"position\": [", i ? "," : "", (long long)i, kind_name(cp[i].kind));
        put_point(f, cp[i].p, sp, ", ");
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"segments\": [");
    for (int64_t s = 0; s < g->n_seg; s++) {
        const parac__skel_segment *sg = &g->seg[s];
        fprintf(f, "%s\n    {\"from\": %lld, \"to\": %lld, \"points\": [", s ? "," : "", (long long)sg->start,
                (long long)sg->end);
        for (int64_t i = 0; i < sg->n; i++) {
            fprintf(f, "%s[", i ? ", " : "");
            put_point(f, sg->p + 3 * i, sp, ", ");
            fprintf(f, "]");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
}

static void write_obj(FILE *f, const parac__skel_graph *g, const double sp[3])
{
    fprintf(f, "# parac skeleton: one line per segment\n");
    int64_t base = 1;
    for (int64_t s = 0; s < g->n_seg; s++) {
        const parac__skel_segment *sg = &g->seg[s];
        for (int64_t i = 0; i < sg->n; i++) {
            fprintf(f, "v ");
            put_point(f, sg->p + 3 * i, sp, " ");
            fprintf(f, "\n");
        }
        fprintf(f, "l");
        for (int64_t i = 0; i < sg->n; i++) fprintf(f, " %lld", (long long)(base + i));
        fprintf(f, "\n");
        base += sg->n;
    }
}

/* SWC: one sample per line, "id type x y z radius parent"; a segment's
 * first sample hangs on the node of its start critical point. */
static void write_swc(FILE *f, const parac__skel_graph *g, const double sp[3])
{
    const parac__skel_critical *cp = g->node;
    const int64_t n_cp = g->n_node;
    fprintf(f, "# parac skeleton: the nodes first (type 5: saddle or junction, 6: other), then the samples of each "
               "segment\n");
    for (int64_t i = 0; i < n_cp; i++) {
        const int fork = cp[i].kind == PARAC__SKEL_SADDLE || cp[i].kind == PARAC__SKEL_JUNCTION;
        fprintf(f, "%lld %d ", (long long)(i + 1), fork ? 5 : 6);
        put_point(f, cp[i].p, sp, " ");
        fprintf(f, " 0.5 -1\n");
    }
    int64_t id = n_cp + 1;
    for (int64_t s = 0; s < g->n_seg; s++) {
        const parac__skel_segment *sg = &g->seg[s];
        int64_t parent = sg->start >= 0 ? sg->start + 1 : -1;
        for (int64_t i = 1; i < sg->n; i++, id++) {
            fprintf(f, "%lld 0 ", (long long)id);
            put_point(f, sg->p + 3 * i, sp, " ");
            fprintf(f, " 0.5 %lld\n", (long long)parent);
            parent = id;
        }
    }
}

parac_status parac__skel_write_graph(const char *path, const parac__skel_graph *g, const double spacing[3])
{
    const char *e = ext(path);
    const int json = !strcmp(e, "json"), obj = !strcmp(e, "obj"), swc = !strcmp(e, "swc");
    if (!json && !obj && !swc)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "skeleton: --graph '%s': the name must end in .json, .obj or "
                           ".swc", path);
    const size_t len = strlen(path);
    char *tmp = parac__malloc(len + 16);
    if (!tmp) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "skeleton: a file name");
    snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
    const int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd), unlink(tmp);
        free(tmp);
        return parac__fail(PARAC_ERR_IO, "skeleton: cannot write '%s'", path);
    }
    if (json) write_json(f, g, spacing);
    else if (obj) write_obj(f, g, spacing);
    else write_swc(f, g, spacing);
    const int bad = ferror(f) | (fclose(f) != 0);
    parac_status st = PARAC_OK;
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        st = parac__fail(PARAC_ERR_IO, "skeleton: cannot write '%s'", path);
    }
    free(tmp);
    return st;
}
