/* Safe output files. Every file a command writes goes through here: it must not be one of the
 * command's inputs or another of its outputs (same device and inode, so hard and symbolic links
 * are caught), it is written to a temporary file in its own folder and renamed over the
 * destination only when complete, so a failed or interrupted write leaves an existing file as
 * it was. "-" is stdout. Devices and pipes (/dev/null, a FIFO) are written in place. */
#ifndef THEMIS_OUTPUT_H
#define THEMIS_OUTPUT_H

#include <stdio.h>

#include "themis/error.h"

typedef struct th_output {
    const char *path; /* the destination as given; "-" = stdout */
    char *dest;       /* the file that is replaced (symbolic links followed); NULL for stdout */
    char *tmp;        /* the temporary file being written; NULL when writing in place */
    FILE *f;          /* the stream to write; NULL once committed or aborted */
} th_output;

/* th_output_open flags. */
enum {
    TH_OUTPUT_FORCE = 1,   /* replace an existing regular file (otherwise TH_EINPUT) */
    TH_OUTPUT_APPEND = 2,  /* write at the end of the existing file, in place (sweep --resume) */
    TH_OUTPUT_STREAM = 4,  /* a file that does not exist yet is created and written in place, so
                            * that a killed process leaves the rows already written (a sweep);
                            * an existing file is still replaced through a temporary file */
    TH_OUTPUT_SCRATCH = 8, /* only a temporary file next to path, to be aborted, never committed:
                            * whatever is at path (a file, a pipe, a folder) is not looked at */
};

/* Checks that no output names the same file as an input or as another output. NULL and "-"
 * entries are skipped, and so are inputs that do not exist (they fail when read) and outputs
 * that are devices or pipes (nothing in them can be lost: /dev/null may be given twice). Outputs
 * that do not exist yet are compared by their folder's device and inode plus their name.
 * TH_EINPUT naming both paths when two coincide. */
int th_output_check(const char *const *inputs, int ninputs, const char *const *outputs,
                    int noutputs, th_error *err);

/* Opens path for writing: creates missing parent folders, refuses an existing regular file
 * unless TH_OUTPUT_FORCE or TH_OUTPUT_APPEND, and opens a temporary file next to the
 * destination (mode: the replaced file's, or 0666 minus the umask). TH_EIO naming the path
 * when the folder or the file cannot be written. */
int th_output_open(th_output *o, const char *path, int flags, th_error *err);

/* Flushes, syncs and closes the file, then renames it over the destination. Any failure
 * (disk full, ...) is TH_EIO naming the path, and the destination is left as it was. */
int th_output_commit(th_output *o, th_error *err);

/* Closes and removes the temporary file: the destination is left as it was. Safe to call
 * after a commit or twice. */
void th_output_abort(th_output *o);

#endif
