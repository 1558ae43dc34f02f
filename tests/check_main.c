/* The test runner: every module's Check suite in one SRunner, one summary line. */
#include <stdlib.h>

#include "check_themis.h"

int main(void) {
    SRunner *sr = srunner_create(units_suite());
    srunner_add_suite(sr, str_suite());
    srunner_add_suite(sr, buf_suite());
    srunner_add_suite(sr, csv_suite());
    srunner_add_suite(sr, system_suite());
    srunner_add_suite(sr, cost_suite());
    srunner_add_suite(sr, schedule_suite());
    srunner_add_suite(sr, emulate_suite());
    srunner_add_suite(sr, emu_queue_suite());
    srunner_add_suite(sr, run_suite());
    srunner_add_suite(sr, report_suite());
    srunner_add_suite(sr, sweep_suite());
    srunner_add_suite(sr, sweep_refs_suite());
    srunner_add_suite(sr, astra_suite());
    srunner_add_suite(sr, astra_npus_suite());
    srunner_add_suite(sr, astra1_suite());
    srunner_add_suite(sr, astra1_npus_suite());
    srunner_add_suite(sr, astra1_workload_suite());
    srunner_add_suite(sr, bound_suite());
    srunner_add_suite(sr, optimize_suite());
    srunner_add_suite(sr, train_suite());
    srunner_add_suite(sr, workloads_suite());
    srunner_add_suite(sr, cli_suite());
    srunner_add_suite(sr, cli_sweep_suite());
    srunner_add_suite(sr, summarize_suite());
    srunner_add_suite(sr, output_suite());
    srunner_add_suite(sr, text_suite());
    srunner_add_suite(sr, cli_train_suite());
    srunner_add_suite(sr, cli_csv_suite());
    srunner_add_suite(sr, figures_suite());
    srunner_add_suite(sr, install_suite());
    srunner_add_suite(sr, cli_formats_suite());
    srunner_add_suite(sr, sha256_suite());
    srunner_add_suite(sr, cli_meta_suite());
    srunner_add_suite(sr, api_suite());
    srunner_add_suite(sr, plot_suite());
    srunner_add_suite(sr, cli_plot_suite());
    srunner_add_suite(sr, calibrate_suite());
    srunner_add_suite(sr, cli_errors_suite());
    srunner_add_suite(sr, llm_suite());
    srunner_add_suite(sr, search_suite());
    srunner_add_suite(sr, cli_search_suite());
    srunner_add_suite(sr, cli_llm_suite());
    srunner_add_suite(sr, chakra_export_suite());
    srunner_add_suite(sr, cli_chakra_suite());
    srunner_add_suite(sr, chakra_suite());
    srunner_add_suite(sr, chakra_mem_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
