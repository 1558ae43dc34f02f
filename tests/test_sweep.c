/* Check suite for the sweep engine (spec parsing, points, rows, runs, resume, merge). */
#include "check_themis.h"
#include "themis/sweep.h"

Suite *sweep_suite(void) { return suite_create("sweep"); }
