/* Fuzz target: the CSV reader (from a buffer and from a stream, which must agree record for
 * record), the writer (every record read, written back and read again, gives the same fields)
 * and th_summarize on the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "themis/csv.h"
#include "themis/summarize.h"

/* Writes the record r holds and reads it back: the same fields. */
static void round_trip(const th_csv_reader *r) {
    th_buf b = {0};
    FUZZ_CHECK(th_csv_copy(&b, r) == 0);
    th_csv_reader back;
    th_csv_open_mem(&back, b.p, b.len, "copy");
    th_error err = {0};
    FUZZ_CHECK(th_csv_read(&back, &err) == 1);
    FUZZ_CHECK(back.complete && back.nfields == r->nfields);
    for (size_t i = 0; i < r->nfields; i++)
        FUZZ_CHECK(strcmp(back.fields[i], r->fields[i]) == 0);
    FUZZ_CHECK(th_csv_read(&back, &err) == 0); /* one record, nothing after it */
    th_csv_close(&back);
    th_buf_free(&b);
}

int th_fuzz_csv(const uint8_t *data, size_t size) {
    const char *path = fuzz_file(0, data, size);
    FILE *f = fopen(path, "rb");
    FUZZ_CHECK(f != NULL);
    th_csv_reader m, s;
    th_csv_open_mem(&m, (const char *)data, size, "in.csv");
    th_csv_open_file(&s, f, "in.csv");
    th_error em = {0}, es = {0};
    int64_t prev_end = 0;
    for (;;) {
        int a = th_csv_read(&m, &em), b = th_csv_read(&s, &es);
        FUZZ_CHECK(a == b);
        if (a < 0) {
            fuzz_check_error(em.code, em.msg, "in.csv");
            FUZZ_CHECK(strcmp(em.msg, es.msg) == 0);
            break;
        }
        if (a == 0) {
            FUZZ_CHECK(prev_end == (int64_t)size); /* every byte belongs to a record */
            break;
        }
        FUZZ_CHECK(m.nfields >= 1 && m.nfields == s.nfields);
        FUZZ_CHECK(m.line == s.line && m.offset == s.offset && m.complete == s.complete);
        FUZZ_CHECK(m.start == prev_end && m.offset > m.start);
        prev_end = m.offset;
        for (size_t i = 0; i < m.nfields; i++)
            FUZZ_CHECK(strcmp(m.fields[i], s.fields[i]) == 0);
        round_trip(&m);
    }
    th_csv_close(&m);
    th_csv_close(&s);
    rewind(f);
    /* summarize: by the first header column when there is one, metric "speedup" */
    th_summary sum;
    th_error err = {0};
    const char *by[] = {"system"};
    int rc = th_summarize(f, "in.csv", by, 1, "speedup", &sum, &err);
    if (rc != TH_OK) {
        fuzz_check_error(rc, err.msg, "in.csv");
    } else {
        size_t counted = 0;
        for (size_t g = 0; g < sum.ngroups; g++) {
            const th_summary_group *gr = &sum.groups[g];
            counted += gr->count;
            if (gr->count > 0) FUZZ_CHECK(gr->min <= gr->max);
        }
        FUZZ_CHECK(counted <= sum.rows && sum.ngroups <= sum.rows);
        th_summary_free(&sum);
    }
    fclose(f);
    return 0;
}
