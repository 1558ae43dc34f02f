/* Small string tools: name tables, copies, base names (include/themis/str.h). */
#include <stdlib.h>
#include <string.h>

#include "themis/str.h"

int th_name_find(const char *const *names, const char *s) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

char *th_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void th_base_name(const char *path, const char *suffix, char *out, size_t n) {
    if (n == 0) return;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t len = strlen(b);
    if (suffix) {
        size_t k = strlen(suffix);
        if (len > k && strcmp(b + len - k, suffix) == 0) len -= k;
    } else {
        const char *dot = strrchr(b, '.');
        if (dot && dot != b) len = (size_t)(dot - b);
    }
    if (len >= n) len = n - 1;
    memcpy(out, b, len);
    out[len] = '\0';
}
