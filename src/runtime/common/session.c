/* A session's core: its knobs, read once as it opens; its kernels, found
 * once by name; what it holds, freed as it closes. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "core/error_internal.h"
#include "runtime/common/runtime_core.h"

static const char *knob(const char *prefix, const char *name)
{
    char var[64];
    snprintf(var, sizeof var, "%s_%s", prefix, name);
    return getenv(var);
}

static int knob_on(const char *prefix, const char *name)
{
    const char *v = knob(prefix, name);
    return v && *v && strcmp(v, "0") != 0;
}

static int knob_int(const char *prefix, const char *name)
{
    const char *v = knob(prefix, name);
    return v ? atoi(v) : 0;
}

void parac__rt_session_init(parac__rt_session *s, const parac__rt_backend *b)
{
    s->backend = b;
    const char *p = b->knob_prefix;
    s->knobs.profile = knob_on(p, "PROFILE");
    s->knobs.search = knob_on(p, "SEARCH");
    s->knobs.variant = knob_int(p, "VARIANT");
    s->knobs.fusion = knob_int(p, "FUSION");
    s->knobs.no_spares = knob_on(p, "NO_SPARES");
    s->keep_spares = !s->knobs.no_spares;
    for (int d = 0; d < 3; d++) s->max_dims[d] = 1;
    s->units = 1;
}

void parac__rt_session_free(parac__rt_session *s)
{
    for (int i = 0; i < s->nkernels; i++) {
        if (s->backend->release_kernel) s->backend->release_kernel(s->kernels[i]->handle);
        free(s->kernels[i]->name);
        free(s->kernels[i]);
    }
    free(s->kernels);
    s->kernels = NULL;
    s->nkernels = 0;
    free(s->shapes);
    s->shapes = NULL;
    s->nshapes = 0;
    parac__rt_free_spares(s);
}

parac_status parac__rt_kernel_get(parac__rt_session *s, const char *name, parac__rt_kernel **out)
{
    for (int i = 0; i < s->nkernels; i++)
        if (!strcmp(s->kernels[i]->name, name)) {
            *out = s->kernels[i];
            return PARAC_OK;
        }
    void *handle = NULL;
    size_t max_items = 0;
    PARAC_TRY(s->backend->find_kernel(s, name, &handle, &max_items));
    parac__rt_kernel **t = parac__realloc(s->kernels, sizeof *t * (size_t)(s->nkernels + 1));
    parac__rt_kernel *k = t ? parac__calloc(1, sizeof *k) : NULL;
    if (t) s->kernels = t;
    if (k) k->name = parac__strdup(name);
    if (!k || !k->name) {
        free(k);
        if (s->backend->release_kernel) s->backend->release_kernel(handle);
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "kernel table");
    }
    k->handle = handle;
    k->max_items = max_items ? max_items : 1;
    t[s->nkernels++] = k;
    *out = k;
    return PARAC_OK;
}

parac_status parac__rt_injected(const parac__rt_backend *b, const char *what)
{
    if (parac__countdown_hit())
        return parac__fail(b->fail_code, "%s: injected failure (%s_fail_after)", what, b->api_prefix);
    return PARAC_OK;
}

parac_status parac__rt_injected_call(const parac__rt_backend *b, const char *call)
{
    char what[80];
    snprintf(what, sizeof what, "%s_%s", b->api_prefix, call);
    return parac__rt_injected(b, what);
}

parac_status parac__rt_use(parac__rt_session *s)
{
    return s->backend->use ? s->backend->use(s) : PARAC_OK;
}

int parac__rt_names_device(const char *name, const char *selector)
{
    const size_t n = strlen(selector);
    for (; *name; name++) {
        size_t i = 0;
        while (i < n && name[i] && tolower((unsigned char)name[i]) == tolower((unsigned char)selector[i])) i++;
        if (i == n) return 1;
    }
    return n == 0;
}
