/* Check suite for `themis sweep` and `themis merge` run as a user would. */
#include "check_themis.h"

Suite *cli_sweep_suite(void) { return suite_create("cli_sweep"); }
