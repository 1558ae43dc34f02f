/* The embedding entry point, for programs that link libthemis (the Python package in python/
 * calls it through ctypes): one command per call, its options as a JSON request, its result as
 * the JSON text `themis COMMAND -f json` prints (made by the same report code: the same bytes),
 * its error as the message the command prints after "themis: ".
 *
 * The interface is this header only, and it is kept stable: new commands and request keys are
 * added, existing ones keep their meaning. Everything a call needs is in its arguments (no
 * globals), so calls may run in parallel threads.
 *
 * Requests: a JSON object (NULL or "" = {}); unknown keys are errors naming the nearest known
 * one. "system" and "workload" take a file name (relative to the working folder) or the
 * file's content as an object; "system" absent or null is the built-in default-3d. Sizes are
 * a number of bytes or a string such as "64MiB"; "dims" is a list such as [0, 2] or "0,2";
 * "policy" and "intra" take "all" like the command line.
 *
 *   command    keys (the command-line option of the same name)              result
 *   "run"      system, collective, size, chunks, policy, intra, dims,       themis run -f json
 *              load_model, bound and ideal_lat (true/false; --ideal-lat)
 *   "train"    workload (required), system, policy, intra, priority,        themis train -f json
 *              iterations, batch, chunks, chunking, bucket, load_model,
 *              ideal_lat (true/false; --ideal-lat); a workload file in
 *              ASTRA-sim 1.0's text format also comm_scale, compute_scale,
 *              passes (its --comm-scale, --compute-scale, --passes)
 *   "sweep"    spec (required: file or object), jobs (threads; default      {"name", "points",
 *              every core), shard ("K/N"), base_dir (where an object         "rows"}
 *              spec's relative paths start; default ".")
 *   "optimize" system, collective, size, chunks, policy (default themis),  themis optimize
 *              intra (fifo or scf; default scf), budget, cost (a number      -f json
 *              per dim), dims, min_GBps, max_GBps, max_evals, objective,
 *              workload or collectives (a list file or object), batch and
 *              priority (with a workload); chunks a list or "auto": the
 *              best count per pair (--chunks LIST), a JSON array
 *   "calibrate" logs (required: a file or a list), collective, topology,  themis calibrate
 *              npus, algorithm, name, bw, or system (a file) and dim;       -f json
 *              efficiency, in_place, allow_wrong (true/false), min_size,
 *              max_size, tolerance, plot (an image file: --plot), force
 *              (true: replace an existing plot)
 *   "plot"     csv, x, y, output (required), by (a list or "a,b"),       {"output", "rows",
 *              where (an object column: value), logx, logy, force         "series"} (names)
 *              (true/false), title
 *   "system"   system                                                       the system as
 *                                                                           run -f json shows it
 *   "version"  (none)                                                       {"version", "api"}
 *
 * A system file's "run" object stands in for an absent chunks, policy or intra, as for
 * `themis run`. A sweep's rows are not in its result: they go to the row callback. */
#ifndef THEMIS_API_H
#define THEMIS_API_H

#include "themis/export.h"

#include <stddef.h>

#define TH_API_VERSION 5 /* raised when a command or key is added */

/* Receives a sweep's CSV records, as `themis sweep` writes them (the same text, unquoted): the
 * header first, then one row per point in point order, from the calling thread. The fields are
 * valid during the call only. Returning non-zero stops the sweep: th_api_call then returns
 * TH_OK with "rows" (the rows the callback took, returning 0) short of "points".
 * train and optimize call it with nfields 0 and fields NULL while they compute (from the calling
 * thread, at most every 10 ms): returning non-zero ends the call, TH_EINTERNAL "interrupted". So
 * an embedder that sees Ctrl-C only while its own code runs (Python) can stop a long call. */
typedef int (*th_api_row_fn)(void *ctx, size_t nfields, const char *const *fields);

/* Runs `command` with `request`. Returns 0 (TH_OK) with *result the command's JSON text, or
 * TH_EINPUT (bad request, input file or content: the command line exits 2), TH_EIO (exit 3)
 * or TH_EINTERNAL (exit 1) with *result the one-line message. *result is NUL-terminated and
 * freed with th_api_free; it is NULL only when memory ran out (TH_EINTERNAL). `row` may be
 * NULL (a sweep then only counts its rows). */
TH_API int th_api_call(const char *command, const char *request, th_api_row_fn row, void *row_ctx,
                       char **result);

/* Frees a result of th_api_call (NULL is fine). */
TH_API void th_api_free(char *s);

#endif
