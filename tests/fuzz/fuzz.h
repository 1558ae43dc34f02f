/* Fuzz targets: one entry point per input parser, shared by the libFuzzer binaries
 * (make fuzz) and the regression replay driver (make check). */
#ifndef THEMIS_FUZZ_H
#define THEMIS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Each target parses one input; it returns 0 and aborts (a crash to both drivers) when a
 * result breaks an invariant that holds for any input. */
int th_fuzz_system(const uint8_t *data, size_t size);    /* th_system_parse */
int th_fuzz_workload(const uint8_t *data, size_t size);  /* th_workload_parse */
int th_fuzz_sweep(const uint8_t *data, size_t size);     /* th_sweep_parse */
int th_fuzz_astra_net(const uint8_t *data, size_t size); /* th_astra_import, the YAML */
int th_fuzz_astra_sys(const uint8_t *data, size_t size); /* th_astra_import, the JSON */
int th_fuzz_units(const uint8_t *data, size_t size);     /* sizes, shards */
int th_fuzz_csv(const uint8_t *data, size_t size);       /* th_csv_read, th_summarize */
int th_fuzz_calibrate(const uint8_t *data, size_t size); /* th_cal_log_parse, the fit */

/* th_astra1_import: an ASTRA-sim 1.0 network JSON, a 1.0 system text */
int th_fuzz_astra1_net(const uint8_t *data, size_t size);
int th_fuzz_astra1_sys(const uint8_t *data, size_t size);

/* th_a1_parse, th_a1_convert and th_a1_replay (ASTRA-sim 1.0 text workloads) */
int th_fuzz_astra1_workload(const uint8_t *data, size_t size);

/* th_llm_parse, th_llm_memory and th_llm_eval (LLM workloads) */
int th_fuzz_llm(const uint8_t *data, size_t size);

/* th_ck_parse and th_ck_replay (Chakra execution traces, one file) */
int th_fuzz_chakra(const uint8_t *data, size_t size);

/* th_ck_groups_parse and th_ck_group_dims (communicator group files of Chakra traces) */
int th_fuzz_comm_group(const uint8_t *data, size_t size);

/* The source tree ($THEMIS_SRCDIR, else "."): sweep specs resolve their files there. */
const char *fuzz_srcdir(void);
/* A malloc'd NUL-terminated copy of the input (aborts when out of memory). */
char *fuzz_text(const uint8_t *data, size_t size);
/* Writes the input to this process's temporary file number `slot` (0 or 1); returns its path. */
const char *fuzz_file(int slot, const uint8_t *data, size_t size);
/* Aborts with a message when cond is false: an invariant broken. */
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))
void fuzz_fail(const char *file, int line, const char *what);
/* An error from a rejected input: a known code and a one-line message naming `source` (unless
 * NULL). */
void fuzz_check_error(int rc, const char *msg, const char *source);
/* An import's result: a rejected input's error (as above), else `out` (freed here) must load
 * as a system file. */
void fuzz_check_import(int rc, char *out, const char *msg, const char *source);

#endif
