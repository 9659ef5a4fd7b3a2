/* Symbol visibility and C++ linkage for the public parac API. */
#ifndef PARAC_EXPORT_H
#define PARAC_EXPORT_H

#if defined(_WIN32) && defined(PARAC_SHARED_BUILD)
#define PARAC_API __declspec(dllexport)
#elif defined(__GNUC__)
#define PARAC_API __attribute__((visibility("default")))
#else
#define PARAC_API
#endif

#ifdef __cplusplus
#define PARAC_BEGIN_DECLS extern "C" {
#define PARAC_END_DECLS }
#else
#define PARAC_BEGIN_DECLS
#define PARAC_END_DECLS
#endif

#endif
