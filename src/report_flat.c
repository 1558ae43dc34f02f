/* A result row flattened to CSV: the one rule by which every command's CSV columns follow from
 * its JSON result rows (docs/SCHEMA.md), so that the two formats cannot drift apart. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_internal.h"
#include "themis/csv.h"

/* A scalar's text: a number's fewest digits, a string as it is, true and false as 1 and 0 (as
 * a count of them would be); null and a non-finite number (which JSON prints as null) are
 * empty. */
static const char *scalar(const cJSON *v, char *buf) {
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble)) return "";
        return th_num_format(buf, v->valuedouble);
    }
    if (cJSON_IsString(v)) return v->valuestring;
    if (cJSON_IsTrue(v)) return "1";
    if (cJSON_IsFalse(v)) return "0";
    return "";
}

static int is_scalar_list(const cJSON *v) {
    const cJSON *x;
    cJSON_ArrayForEach(x, v) if (cJSON_IsArray(x) || cJSON_IsObject(x)) return 0;
    return 1;
}

/* Appends the columns of value v, named `name`, to b: their names (names != 0) or values. */
static int flat(th_buf *b, const char *name, const cJSON *v, int names) {
    char col[256], num[32];
    const cJSON *x;
    int bad = 0;
    if (cJSON_IsArray(v) && is_scalar_list(v)) { /* "0;1;2" in one column */
        if (names) return th_csv_field(b, name);
        th_buf cell = {0};
        cJSON_ArrayForEach(x, v) {
            if (x != v->child) bad |= th_buf_add(&cell, ";", 1);
            const char *t = scalar(x, num);
            bad |= th_buf_add(&cell, t, strlen(t));
        }
        bad |= th_csv_field(b, cell.p ? cell.p : "");
        th_buf_free(&cell);
        return bad;
    }
    if (cJSON_IsArray(v)) { /* per_dim[1].busy_us -> dim1_busy_us */
        const char *stem = strncmp(name, "per_", 4) == 0 ? name + 4 : name;
        int i = 0;
        cJSON_ArrayForEach(x, v) {
            const cJSON *m;
            cJSON_ArrayForEach(m, x) {
                snprintf(col, sizeof col, "%s%d_%s", stem, i, m->string);
                bad |= flat(b, col, m, names);
            }
            i++;
        }
        return bad;
    }
    if (cJSON_IsObject(v)) { /* an object's members: name_member */
        cJSON_ArrayForEach(x, v) {
            snprintf(col, sizeof col, "%s_%s", name, x->string);
            bad |= flat(b, col, x, names);
        }
        return bad;
    }
    return th_csv_field(b, names ? name : scalar(v, num));
}

int th_report_flat(th_buf *b, const cJSON *row, int names) {
    const cJSON *x;
    int bad = 0;
    cJSON_ArrayForEach(x, row) bad |= flat(b, x->string, x, names);
    return bad | th_csv_end(b);
}

int th_report_write_csv(FILE *out, cJSON *root, const char *key, th_error *err) {
    if (!root) return th_error_set(err, TH_EINTERNAL, "out of memory building the rows");
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(root, key), *row;
    th_buf head = {0}, b = {0};
    int bad = 0, rc = TH_OK;
    cJSON_ArrayForEach(row, rows) {
        if (row == rows->child) { /* the header: the first row's columns */
            bad |= th_report_flat(&head, row, 1);
            if (!bad) fwrite(head.p, 1, head.len, out);
        } else if (!bad) { /* every row has the first one's columns */
            bad |= th_report_flat(&b, row, 1);
            if (!bad && (b.len != head.len || memcmp(b.p, head.p, b.len) != 0))
                rc = th_error_set(err, TH_EINTERNAL, "a row's columns differ from the header's");
            th_buf_truncate(&b, 0);
        }
        if (bad || rc) break;
        bad |= th_report_flat(&b, row, 0);
        if (!bad) th_csv_write(out, &b); /* write errors: th_report_done sees them */
    }
    th_buf_free(&head);
    th_buf_free(&b);
    cJSON_Delete(root);
    if (rc) return rc;
    if (bad) return th_error_set(err, TH_EINTERNAL, "out of memory");
    return th_report_done(out, err);
}
