/* TH_API marks the functions and data of the public C API: the shared library is built with
 * hidden visibility, so it exports exactly what the installed headers mark (the static library
 * keeps every symbol linkable, for the command and the tests). */
#ifndef THEMIS_EXPORT_H
#define THEMIS_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define TH_API __attribute__((visibility("default")))
#else
#define TH_API
#endif

#endif
