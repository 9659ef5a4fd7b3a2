/* Border mode names (parac/filter.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/error_internal.h"
#include "parac/filter.h"

static const struct {
    const char *name;
    parac_border mode;
} border_names[] = {
    {"reflect101", PARAC_BORDER_REFLECT101}, {"reflect", PARAC_BORDER_REFLECT},
    {"replicate", PARAC_BORDER_REPLICATE},   {"constant", PARAC_BORDER_CONSTANT},
    {"wrap", PARAC_BORDER_WRAP},
    /* scipy.ndimage's names for the same rules */
    {"mirror", PARAC_BORDER_REFLECT101},     {"nearest", PARAC_BORDER_REPLICATE},
    {"grid-wrap", PARAC_BORDER_WRAP},        {"grid-mirror", PARAC_BORDER_REFLECT},
    {"grid-constant", PARAC_BORDER_CONSTANT},
};

parac_status parac_border_parse(const char *text, parac_border *border, double *value)
{
    if (!text || !border)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "border: no text or result given");
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    for (size_t i = 0; i < sizeof border_names / sizeof border_names[0]; i++) {
        if (strlen(border_names[i].name) != len || strncmp(text, border_names[i].name, len) != 0)
            continue;
        double v = 0.0;
        if (colon) {
            if (border_names[i].mode != PARAC_BORDER_CONSTANT)
                return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                                   "border '%s': only 'constant' takes a value", text);
            char *end = NULL;
            errno = 0;
            v = strtod(colon + 1, &end);
            if (end == colon + 1 || *end != '\0' || errno == ERANGE || !isfinite(v))
                return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                                   "border '%s': the constant must be a finite number", text);
        }
        *border = border_names[i].mode;
        if (value) *value = v;
        return PARAC_OK;
    }
    return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                       "unknown border '%s' (expected reflect101, reflect, replicate, "
                       "constant[:VALUE] or wrap)", text);
}

const char *parac_border_name(parac_border border)
{
    switch (border) {
    case PARAC_BORDER_REFLECT101: return "reflect101";
    case PARAC_BORDER_REFLECT: return "reflect";
    case PARAC_BORDER_REPLICATE: return "replicate";
    case PARAC_BORDER_CONSTANT: return "constant";
    case PARAC_BORDER_WRAP: return "wrap";
    }
    return "unknown";
}
