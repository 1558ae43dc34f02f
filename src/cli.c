/* themis entry point: subcommand dispatch, global help and version, shared CLI helpers. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_fail(const th_error *err) {
    fprintf(stderr, "themis: %s\n", err->msg);
    return err->code == TH_EINTERNAL ? CLI_INTERNAL : err->code == TH_EIO ? CLI_IO : CLI_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "themis: %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'themis %s --help')\n", cmd);
    va_end(ap);
    return CLI_USAGE;
}

int cli_parse_int(const char *s, long long lo, long long hi, long long *out) {
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_load_system(const char *path, th_system *sys, th_error *err) {
    if (!path) {
        th_system_default(sys);
        return TH_OK;
    }
    return th_system_load(path, sys, err);
}

int cli_parse_format(const char *cmd, const char *arg, int *format) {
    static const char *const names[] = {"table", "json", "csv"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(arg, names[i])) {
            *format = i;
            return CLI_OK;
        }
    return cli_usage_error(cmd, "-f: unknown format '%s' (expected table, json or csv)", arg);
}

FILE *cli_open_out(const char *path, th_error *err) {
    if (!strcmp(path, "-")) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) th_error_set(err, TH_EINPUT, "%s: cannot open for writing: %s", path, strerror(errno));
    return f;
}

int cli_close_out(FILE *f, const char *path, th_error *err) {
    int bad = fflush(f) != 0 || ferror(f);
    if (f != stdout) bad |= fclose(f) != 0;
    if (bad) return th_error_set(err, TH_EINTERNAL, "%s: write error", path);
    return TH_OK;
}

static void usage(FILE *out) {
    fputs("usage: themis [COMMAND] [OPTIONS]\n"
          "\n"
          "How fast does a hierarchical collective run on a multi-dimensional network, and how\n"
          "much does the chunk schedule (baseline, Themis, round-robin; FIFO or SCF) matter?\n"
          "\n"
          "commands:\n"
          "  run        evaluate one collective under each scheduling policy (the default)\n"
          "  train      replay training iterations of a workload (compute + collectives)\n"
          "  sweep      evaluate every point of a sweep spec into a CSV\n"
          "  merge      join the shard files of a sweep\n"
          "  import-astra  convert ASTRA-sim network/system files to a system file\n"
          "  summarize  mean, geometric mean, min and max of a CSV column, grouped\n"
          "\n"
          "options:\n"
          "  -h, --help     this text; 'themis COMMAND --help' for a command's options\n"
          "  -V, --version  print the version\n"
          "\n"
          "example:\n"
          "  themis run -s models/systems/default-3d.json -b 1GiB -n 64 -f csv\n",
          out);
}

int main(int argc, char **argv) {
    if (argc < 2 || argv[1][0] == '-') {
        if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
            usage(stdout);
            return CLI_OK;
        }
        if (argc >= 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
            printf("themis %s\n", TH_VERSION);
            return CLI_OK;
        }
        return cli_run(argc, argv); /* bare options mean `themis run OPTIONS` */
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run")) return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "sweep")) return cli_sweep(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge")) return cli_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "import-astra")) return cli_import_astra(argc - 1, argv + 1);
    if (!strcmp(cmd, "train")) return cli_train(argc - 1, argv + 1);
    if (!strcmp(cmd, "summarize")) return cli_summarize(argc - 1, argv + 1);
    if (!strcmp(cmd, "help")) {
        usage(stdout);
        return CLI_OK;
    }
    fprintf(stderr, "themis: unknown command '%s' (see 'themis --help')\n", cmd);
    return CLI_USAGE;
}
