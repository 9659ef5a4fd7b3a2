/* Recording failures: parac__fail() stores a formatted message and returns
 * the status, so a failing path reads `return parac__fail(PARAC_ERR_X, ...)`. */
#ifndef PARAC_ERROR_INTERNAL_H
#define PARAC_ERROR_INTERNAL_H

#include "parac/status.h"

#if defined(__GNUC__)
#define PARAC__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PARAC__PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

parac_status parac__fail(parac_status status, const char *fmt, ...) PARAC__PRINTF(2, 3);

/* Prefix the current message with context ("reading 'a.png': ...") and
 * pass the status through. A message that starts with the prefix's first
 * word and a colon loses that start: "label (method runs on cpu): the input
 * is f64", not "label (method runs on cpu): label: the input is f64". */
parac_status parac__wrap(parac_status status, const char *fmt, ...) PARAC__PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

/* Propagate a failing status. */
#define PARAC_TRY(expr)                                                        \
    do {                                                                       \
        parac_status parac__st = (expr);                                       \
        if (parac__st != PARAC_OK) return parac__st;                           \
    } while (0)

#endif
