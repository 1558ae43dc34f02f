/* SHA-256 (FIPS 180-4) of a byte string, as the lowercase hex digest `sha256sum` prints: the
 * provenance sidecar of a sweep names its spec by it. */
#ifndef THEMIS_SHA256_H
#define THEMIS_SHA256_H

#include <stddef.h>

/* Writes the 64 hex digits and a NUL into hex. */
void th_sha256_hex(const void *data, size_t len, char hex[65]);

/* The digest of a file's bytes into hex: 0, or -1 when it cannot be read (or memory ran out). */
int th_sha256_file(const char *path, char hex[65]);

#endif
