/* Workload files in formats other than our JSON (docs/WORKLOADS.md), behind one loader:
 * th_workload_open tells a file's format by its content and hands it to that format's parser,
 * whose table (one per format) says how to detect, parse, free and convert it. The registry
 * (model_registry.c) lists the formats; the core names none of them. */
#ifndef THEMIS_WORKLOAD_FORMAT_H
#define THEMIS_WORKLOAD_FORMAT_H

#include <stddef.h>

#include "themis/buf.h"
#include "themis/system.h"
#include "themis/workload.h"

typedef struct th_wl_format {
    const char *name; /* in messages: what the file is, with its article */
    const char *hint; /* what takes it where only our JSON is read */
    /* 1 when text is in this format (a cheap look at its first lines), else 0. */
    int (*detect)(const char *text, size_t len);
    /* Parses text into the format's own value (*out, freed by free_native); every error
     * names src. */
    int (*parse)(const char *text, size_t len, const char *src, void **out, th_error *err);
    void (*free_native)(void *native);
    /* Converts a parse to our workload for sys (NULL: no system), with the format's own
     * options (NULL: its defaults); what the conversion changed goes to notes. */
    int (*convert)(const void *native, const th_system *sys, const void *opts, const char *src,
                   th_workload **out, th_buf *notes, th_error *err);
    /* Optional (NULL: never): 1 when the model of sys replays this format itself, with the
     * simulator's own state machine, instead of our replay of the converted workload. */
    int (*native_on)(const th_system *sys);
} th_wl_format;

/* Format i of the registry, or NULL past the last. */
const th_wl_format *th_wl_format_get(int i);

/* A workload file as th_workload_open read it: our JSON workload, or another format's parse. */
typedef struct th_wl_file {
    const th_wl_format *format; /* NULL: our JSON workload, in wl */
    th_workload *wl;            /* our workload (format NULL), else NULL */
    void *native;               /* the format's parse (format set), else NULL */
} th_wl_file;

/* The one workload loader: reads path ("-" = stdin), tells its format by content and parses
 * it into *out (zeroed on error). th_workload_close frees what it holds; a caller that keeps
 * out->wl sets it to NULL first. */
int th_workload_open(const char *path, th_wl_file *out, th_error *err);
void th_workload_close(th_wl_file *f);

#endif
