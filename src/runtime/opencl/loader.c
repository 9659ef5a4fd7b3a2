#define _POSIX_C_SOURCE 200809L
/* Finding OpenCL drivers that no ICD file names. The ICD loader finds
 * drivers through files in /etc/OpenCL/vendors (or $OCL_ICD_VENDORS); GPU
 * machines often have NVIDIA's driver library, libnvidia-opencl.so.1, but
 * no nvidia.icd. Before the first OpenCL call, when a known driver loads
 * but no ICD file names it, a private vendors directory gets one ICD file
 * per registered library plus one per such driver, and OCL_ICD_VENDORS
 * points the loader there (ocl-icd and the Khronos loader both read it)
 * while it initialises; then the directory is removed and the variable
 * restored. Libraries named by OCL_ICD_FILENAMES join the directory;
 * PARAC_OPENCL_ADD_DRIVERS=0 leaves the loader's configuration alone. What was done, or why nothing could be, is kept for
 * parac_opencl_loader_note(). */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "runtime/opencl/runtime_internal.h"
#include "parac/opencl.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char note[4096];

/* Drivers tried when no ICD file names them, NVIDIA's first; each by its
 * name (the loader's search path), then where drivers are often installed. */
static const char *const known[] = {"libnvidia-opencl.so.1", "libpocl.so.2"};
static const char *const places[] = {"/usr/local/nvidia/lib64/", "/usr/lib/x86_64-linux-gnu/", "/usr/lib64/",
                                     "/usr/lib/"};

/* The first form of lib that loads (into path), or 0 with the error. */
static int loads(const char *lib, char *path, size_t size, char *why, size_t why_size)
{
    for (int k = -1; k < (int)(sizeof places / sizeof places[0]); k++) {
        snprintf(path, size, "%s%s", k < 0 ? "" : places[k], lib);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            dlclose(h);
            return 1;
        }
        if (k < 0) {
            const char *e = dlerror();
            snprintf(why, why_size, "%s", e ? e : "not found");
        }
    }
    return 0;
}

static int named(const char *list, const char *lib)
{
    const char *base = strrchr(lib, '/');
    base = base ? base + 1 : lib;
    return strstr(list, base) != NULL;
}

static void append(char *list, size_t size, const char *lib)
{
    if (strlen(list) + strlen(lib) + 2 >= size) return;
    if (list[0]) strcat(list, ":");
    strcat(list, lib);
}

/* The libraries the ICD files of dir name, ':'-separated; how many files. */
static int registered(const char *dir, char *list, size_t size)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".icd")) continue;
        char path[4096], lib[1024] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(lib, sizeof lib, f)) {
            lib[strcspn(lib, "\r\n")] = 0;
            if (lib[0]) append(list, size, lib), files++;
        }
        fclose(f);
    }
    closedir(d);
    return files;
}

/* The loader initialised from a private vendors directory naming every
 * library of list (':'-separated): 1, or 0 with the reason. */
static int load_through(const char *list, char *why, size_t why_size)
{
    char dir[] = "/tmp/parac-icd-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(why, why_size, "cannot make a directory in /tmp");
        return 0;
    }
    char names[16][64];
    int n = 0, ok = 1;
    for (const char *p = list; *p && n < 16;) {
        const size_t len = strcspn(p, ":");
        snprintf(names[n], sizeof names[n], "%s/%02d.icd", dir, n);
        FILE *f = fopen(names[n], "w");
        if (!f || fprintf(f, "%.*s\n", (int)len, p) < 0) ok = 0;
        if (f && fclose(f) != 0) ok = 0;
        n++;
        p += len + (p[len] == ':');
    }
    const char *old = getenv("OCL_ICD_VENDORS"), *old_names = getenv("OCL_ICD_FILENAMES");
    char *saved = old ? parac__strdup(old) : NULL, *saved_names = old_names ? parac__strdup(old_names) : NULL;
    if (ok) {
        char slash[sizeof dir + 1];
        snprintf(slash, sizeof slash, "%s/", dir); /* the Khronos loader appends file names as they are */
        setenv("OCL_ICD_VENDORS", slash, 1);
        unsetenv("OCL_ICD_FILENAMES"); /* its libraries are in the directory now */
        cl_uint np = 0;
        clGetPlatformIDs(0, NULL, &np); /* the loader reads the directory now, once */
        if (saved) setenv("OCL_ICD_VENDORS", saved, 1);
        else unsetenv("OCL_ICD_VENDORS");
        if (saved_names) setenv("OCL_ICD_FILENAMES", saved_names, 1);
    } else {
        snprintf(why, why_size, "cannot write ICD files in %s", dir);
    }
    free(saved);
    free(saved_names);
    for (int k = 0; k < n; k++) unlink(names[k]);
    rmdir(dir);
    return ok;
}

static void prepare(void)
{
    const char *opt = getenv("PARAC_OPENCL_ADD_DRIVERS");
    if (opt && !strcmp(opt, "0")) {
        snprintf(note, sizeof note, "PARAC_OPENCL_ADD_DRIVERS=0: the ICD loader's own configuration is used");
        return;
    }
    const char *dir = getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "/etc/OpenCL/vendors";
    char list[4096] = "", added[512] = "", missing[1024] = "", where[1024];
    const int files = registered(dir, list, sizeof list);
    /* OCL_ICD_FILENAMES names libraries directly: the Khronos loader adds
     * them to the directory's, ocl-icd ignores them. Machine images set it
     * (to PoCL, say) on hosts whose GPU driver no ICD file names. Its
     * libraries join the private directory's list, and the variable is unset
     * while the loader initialises, so every loader sees each library once. */
    const char *filenames = getenv("OCL_ICD_FILENAMES");
    int from_names = 0;
    for (const char *p = filenames ? filenames : ""; *p;) {
        const size_t len = strcspn(p, ":");
        char lib[1024];
        snprintf(lib, sizeof lib, "%.*s", (int)(len < sizeof lib ? len : sizeof lib - 1), p);
        if (lib[0] && !named(list, lib)) append(list, sizeof list, lib), from_names++;
        p += len + (p[len] == ':');
    }
    snprintf(where, sizeof where, "%d ICD file%s in %.300s%s%.600s", files, files == 1 ? "" : "s", dir,
             filenames ? ", OCL_ICD_FILENAMES=" : "", filenames ? filenames : "");
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (named(list, known[k])) continue;
        char path[512], why[300];
        if (!loads(known[k], path, sizeof path, why, sizeof why)) {
            char one[512];
            snprintf(one, sizeof one, "%s%s (%s)", missing[0] ? "; " : "", known[k], why);
            if (strlen(missing) + strlen(one) < sizeof missing) strcat(missing, one);
            continue;
        }
        append(list, sizeof list, path);
        append(added, sizeof added, path);
    }
    char why[256] = "";
    const int through = (added[0] || from_names) && load_through(list, why, sizeof why);
    if (added[0] && through)
        snprintf(note, sizeof note, "%s; added %s, which none of them names", where, added);
    else if (added[0] || (from_names && !through))
        snprintf(note, sizeof note, "%s; %s could not be added: %s", where, added[0] ? added : "OCL_ICD_FILENAMES", why);
    else
        snprintf(note, sizeof note, "%s; no other driver could be loaded: %s", where,
                 missing[0] ? missing : "none known");
}

void parac__opencl_prepare_loader(void)
{
    pthread_once(&once, prepare);
}

const char *parac_opencl_loader_note(void)
{
    parac__opencl_prepare_loader();
    return note;
}
