/* The embedding entry point: th_api_call's dispatch and result capture; each command reads its
 * request through its option table (src/cmd/) and runs the command layer's function. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_internal.h"
#include "cmd/cmd.h"
#include "json.h"
#include "report_internal.h"
#include "themis/str.h"
#include "themis/version.h"

static int version(const th_api_req *q, FILE *out, th_error *err) {
    static const th_cmd_def none = {"version", NULL, 0, 0, 0, NULL}; /* no keys */
    uint64_t given = 0;
    if (th_option_from_json(&none, q->root, &given, err)) return err->code;
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddStringToObject(o, "version", TH_VERSION) ||
        !cJSON_AddNumberToObject(o, "api", TH_API_VERSION)) {
        cJSON_Delete(o);
        return th_error_set(err, TH_EINTERNAL, "out of memory");
    }
    return th_report_write_json(out, o, err);
}

static const struct {
    const char *name;
    int (*fn)(const th_api_req *q, FILE *out, th_error *err);
} commands[] = {
    {"run", th_api_run},
    {"train", th_api_train},
    {"sweep", th_api_sweep},
    {"optimize", th_api_optimize},
    {"calibrate", th_api_calibrate},
    {"plot", th_api_plot},
    {"export-chakra", th_api_export_chakra},
    {"system", th_api_system},
    {"version", version},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int dispatch(const char *command, const char *request, th_api_row_fn row, void *row_ctx,
                    FILE *out, th_error *err) {
    size_t k = 0;
    while (k < NCOMMANDS && (!command || strcmp(commands[k].name, command)))
        k++;
    if (k == NCOMMANDS) {
        const char *names[NCOMMANDS + 1];
        for (size_t i = 0; i < NCOMMANDS; i++)
            names[i] = commands[i].name;
        names[NCOMMANDS] = NULL;
        char list[128];
        th_json_join(names, list, sizeof list);
        return th_error_set(err, TH_EINPUT, "unknown command '%s' (expected %s)",
                            command ? command : "(null)", list);
    }
    cJSON *root = NULL;
    const char *text = request && *request ? request : "{}";
    if (th_json_parse(text, strlen(text), command, &root, err)) return err->code;
    int rc;
    if (!cJSON_IsObject(root)) {
        rc = th_json_bad(err, command, "request", "an object", root);
    } else {
        th_api_req q = {command, root, row, row_ctx};
        rc = commands[k].fn(&q, out, err);
    }
    cJSON_Delete(root);
    return rc;
}

static int poll(void *ctx) {
    th_api_poller *p = ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    if (p->last > 0 && now - p->last < 10) return 0;
    p->last = now;
    return p->q->row(p->q->row_ctx, 0, NULL) != 0;
}

void th_api_poll_io(const th_api_req *q, th_api_poller *p, th_cmd_io *io) {
    p->q = q;
    p->last = 0;
    if (q->row) io->poll = poll, io->poll_ctx = p;
}

int th_api_call(const char *command, const char *request, th_api_row_fn row, void *row_ctx,
                char **result) {
    th_error err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = out ? dispatch(command, request, row, row_ctx, out, &err)
                 : th_error_set(&err, TH_EINTERNAL, "out of memory");
    if (out && fclose(out) && rc == TH_OK) rc = th_error_set(&err, TH_EINTERNAL, "out of memory");
    if (rc != TH_OK) {
        free(text);
        text = th_strdup(err.msg);
    }
    *result = text;
    return rc;
}

void th_api_free(char *s) {
    free(s);
}
