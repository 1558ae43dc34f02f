/* Small string tools: name tables and the nearest name ("did you mean"), copies, base names
 * (include/themis/str.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "themis/str.h"

int th_name_find(const char *const *names, const char *s) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0) return i;
    return -1;
}

/* Case-insensitive edit distance, for "did you mean". */
static int distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int th_name_near(const char *const *names, const char *s) {
    int best = -1, bestd = 99;
    for (int i = 0; names[i]; i++) {
        int d = distance(s, names[i]);
        if (d < bestd) bestd = d, best = i;
    }
    /* at most 3 edits, and fewer than the name has characters (no "did you mean x" for "y") */
    return best >= 0 && bestd <= 3 && bestd < (int)strlen(names[best]) ? best : -1;
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
