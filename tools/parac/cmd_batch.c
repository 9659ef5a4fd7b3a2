/* Many images through one operation: parac OP IN... --out-dir DIR.
 *
 * Every single-input, single-output registry operation gets this. Inputs
 * are files, directories (their image files, sorted) or glob patterns.
 * `workers` threads each hold their own context (on CUDA: their own
 * stream) and take images in turn: decode, run, encode. So decoding and
 * encoding run on several CPU threads, and one worker's transfers and
 * kernels overlap another's; on CUDA the input goes through a pinned
 * buffer kept by the worker, and the result comes back into another. A file
 * that fails is reported by name and the rest still run; the exit status is
 * that of the worst failure. */
/* realpath */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_batch.h"

/* ---- the list of inputs ----------------------------------------------------------- */
typedef struct names {
    char **v;
    int n, cap;
} names;

static int add_name(names *l, const char *s)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        char **p = realloc(l->v, (size_t)cap * sizeof *p);
        if (!p) return -1;
        l->v = p;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s))) return -1;
    l->n++;
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A directory's regular files, hidden ones left out, sorted. */
static int add_dir(names *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    const int first = l->n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (add_name(l, path) != 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    qsort(l->v + first, (size_t)(l->n - first), sizeof *l->v, by_name);
    return 0;
}

static int expand(names *l, const char *arg)
{
    if (is_dir(arg)) return add_dir(l, arg);
    if (strpbrk(arg, "*?[") && access(arg, F_OK) != 0) {
        glob_t g;
        int rc = glob(arg, 0, NULL, &g);
        if (rc == GLOB_NOMATCH) {
            cli_error("no file matches '%s'", arg);
            return -2;
        }
        for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
            if (add_name(l, g.gl_pathv[i]) != 0) rc = -1;
        globfree(&g);
        return rc == 0 ? 0 : -1;
    }
    return add_name(l, arg); /* a missing file is reported when it is read */
}

/* ---- the workers -------------------------------------------------------------------- */
typedef struct batch {
    const parac_op *op;
    const parac_args *args;
    const cli_batch_options *o;
    names in;
    pthread_mutex_t lock;    /* messages, progress, counters */
    int next, done, failed, worst;
    int show_bar;
    char explain[1024];
} batch;

static void progress(batch *b)
{
    if (!b->show_bar) return;
    const int filled = b->done * 40 / (b->in.n ? b->in.n : 1);
    fprintf(stderr, "\r[%.*s%*s] %d/%d images%s", filled, "########################################", 40 - filled,
            "", b->done, b->in.n, b->failed ? " (some failed)" : "");
    if (b->done == b->in.n) fputc('\n', stderr);
    fflush(stderr);
}

static void report(batch *b, const char *file, parac_status st)
{
    pthread_mutex_lock(&b->lock);
    if (st != PARAC_OK) {
        if (b->show_bar) fputc('\n', stderr);
        /* read and write errors name the file already */
        const int code = cli_fail(st, strstr(parac_error_message(), file) ? "" : file);
        if (code > b->worst) b->worst = code;
        b->failed++;
    }
    b->done++;
    progress(b);
    pthread_mutex_unlock(&b->lock);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Keep `*buf` an image of the same shape and dtype as `like` in `memory`. */
static parac_status staging(parac_image **buf, const parac_image *like, parac_memory memory)
{
    parac_image *b = *buf;
    if (b && b->width == like->width && b->height == like->height && b->depth == like->depth &&
        b->channels == like->channels && b->dtype == like->dtype)
        return PARAC_OK;
    parac_image_destroy(b);
    *buf = NULL;
    return parac_image_create(buf, like->width, like->height, like->depth, like->channels, like->dtype, memory, -1);
}

static parac_status one(batch *b, parac_context *ctx, const char *file, parac_image **pin_in,
                        parac_image **pin_out, char *why, size_t why_size)
{
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/%s", b->o->out_dir, base_name(file));
    parac_image *img = NULL, *res = NULL;
    parac_status st = parac_image_read(file, b->o->read, &img);
    const int cuda = parac_context_backend(ctx) == PARAC_BACKEND_CUDA;
    parac_image *in = img;
    if (st == PARAC_OK && cuda && staging(pin_in, img, PARAC_MEMORY_PINNED) == PARAC_OK &&
        parac_image_copy(*pin_in, img, NULL) == PARAC_OK)
        in = *pin_in; /* pinned: the upload runs asynchronously on the worker's stream */
    double results[PARAC_MAX_RESULTS] = {0};
    if (st == PARAC_OK)
        st = parac_op_run_results(ctx, b->op->name, &in, 1, &res, 1, b->args, results, PARAC_MAX_RESULTS, why, why_size);
    parac_image *host = res;
    if (st == PARAC_OK && res->memory == PARAC_MEMORY_CUDA) {
        st = staging(pin_out, res, PARAC_MEMORY_PINNED);
        if (st == PARAC_OK) st = parac_image_copy(*pin_out, res, parac_context_stream(ctx));
        host = *pin_out;
    }
    if (st == PARAC_OK) st = parac_context_synchronize(ctx);
    if (st == PARAC_OK) st = parac_image_write(out_path, host, b->o->write);
    /* the operation's numbers: "FILE: name value ..." on one line of stdout */
    if (st == PARAC_OK && b->op->n_results) {
        char line[512];
        int used = snprintf(line, sizeof line, "%s:", file);
        for (int k = 0; k < b->op->n_results && used > 0 && (size_t)used < sizeof line; k++)
            used += snprintf(line + used, sizeof line - (size_t)used, " %s %.17g", b->op->results[k].name, results[k]);
        printf("%s\n", line);
    }
    parac_image_destroy(res);
    parac_image_destroy(img);
    return st;
}

static void *worker(void *arg)
{
    batch *b = arg;
    parac_context *ctx = NULL;
    parac_status st = parac_context_create(&ctx, cli.device);
    if (st != PARAC_OK) { /* its images go to the other workers */
        pthread_mutex_lock(&b->lock);
        const int code = cli_fail(st, b->op->name);
        if (code > b->worst) b->worst = code;
        pthread_mutex_unlock(&b->lock);
        return NULL;
    }
    /* the operation's own threads share the cores with the other workers */
    const int cores = parac_context_threads(ctx);
    parac_context_set_threads(ctx, cores / b->o->workers > 0 ? cores / b->o->workers : 1);
    parac_image *pin_in = NULL, *pin_out = NULL;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        const int i = b->next++;
        const int want_why = b->o->explain && !b->explain[0];
        pthread_mutex_unlock(&b->lock);
        if (i >= b->in.n) break;
        char why[1024] = "";
        st = one(b, ctx, b->in.v[i], &pin_in, &pin_out, want_why ? why : NULL, want_why ? sizeof why : 0);
        if (want_why && st == PARAC_OK) {
            pthread_mutex_lock(&b->lock);
            if (!b->explain[0]) snprintf(b->explain, sizeof b->explain, "%s", why);
            pthread_mutex_unlock(&b->lock);
        }
        report(b, b->in.v[i], st);
    }
    parac_image_destroy(pin_in);
    parac_image_destroy(pin_out);
    parac_context_destroy(ctx);
    return NULL;
}

int cli_run_batch(const parac_op *op, const parac_args *args, const char *const *inputs, int n_inputs,
                  const cli_batch_options *o)
{
    if (op->n_inputs != 1 || op->n_outputs != 1) {
        cli_error("%s: --out-dir needs an operation with one input and one output", op->name);
        return CLI_USER_ERROR;
    }
    batch b = {.op = op, .args = args, .o = o};
    for (int i = 0; i < n_inputs; i++) {
        const int rc = expand(&b.in, inputs[i]);
        if (rc == -1) {
            cli_error("%s: cannot list '%s': %s", op->name, inputs[i], strerror(errno));
            return CLI_USER_ERROR;
        }
        if (rc == -2) return CLI_USER_ERROR;
    }
    int rc = CLI_OK;
    if (b.in.n == 0) {
        cli_error("%s: no input files", op->name);
        rc = CLI_USER_ERROR;
    } else if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
        cli_error("%s: cannot create '%s': %s", op->name, o->out_dir, strerror(errno));
        rc = CLI_USER_ERROR;
    } else if (!is_dir(o->out_dir)) {
        cli_error("%s: '%s' is not a directory", op->name, o->out_dir);
        rc = CLI_USER_ERROR;
    }
    for (int i = 0; rc == CLI_OK && i < b.in.n; i++) { /* never write over an input */
        char out_path[4096], a[4096], c[4096];
        snprintf(out_path, sizeof out_path, "%s/%s", o->out_dir, base_name(b.in.v[i]));
        if (realpath(b.in.v[i], a) && realpath(out_path, c) && strcmp(a, c) == 0) {
            cli_error("%s: writing '%s' would replace its input: choose another --out-dir", op->name, out_path);
            rc = CLI_USER_ERROR;
        }
    }
    if (rc == CLI_OK) {
        pthread_mutex_init(&b.lock, NULL);
        b.show_bar = !cli.quiet && (cli.progress || isatty(fileno(stderr)));
        int workers = o->workers < 1 ? 1 : o->workers > 64 ? 64 : o->workers;
        if (workers > b.in.n) workers = b.in.n;
        cli_batch_options oo = *o;
        oo.workers = workers;
        b.o = &oo;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        pthread_t tid[64];
        int started = 0;
        for (int i = 1; i < workers; i++, started++)
            if (pthread_create(&tid[i], NULL, worker, &b) != 0) break;
        worker(&b);
        for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (b.done < b.in.n) {
            cli_error("%s: %d of %d images were not processed", op->name, b.in.n - b.done, b.in.n);
            if (b.worst == CLI_OK) b.worst = CLI_INTERNAL_ERROR;
        }
        if (o->explain && b.explain[0]) printf("%s\n", b.explain);
        cli_info("%s: %d image%s in %.2f s (%.1f images/s) on %d worker%s, %d failed", op->name, b.in.n,
                 b.in.n == 1 ? "" : "s", s, b.in.n / (s > 0 ? s : 1e-9), workers, workers == 1 ? "" : "s", b.failed);
        rc = b.worst;
        pthread_mutex_destroy(&b.lock);
    }
    for (int i = 0; i < b.in.n; i++) free(b.in.v[i]);
    free(b.in.v);
    return rc;
}
