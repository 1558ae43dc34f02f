/* themis: closed-form cost model and chunk-schedule emulator for hierarchical collectives on
 * multi-dimensional networks (Rashidi et al., ISCA 2022). One header for the whole library. */
#ifndef THEMIS_THEMIS_H
#define THEMIS_THEMIS_H

#include "themis/api.h"
#include "themis/astra.h"
#include "themis/astra1_workload.h"
#include "themis/bound.h"
#include "themis/buf.h"
#include "themis/calibrate.h"
#include "themis/collist.h"
#include "themis/cost.h"
#include "themis/csv.h"
#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/optimize.h"
#include "themis/output.h"
#include "themis/plot.h"
#include "themis/report.h"
#include "themis/run.h"
#include "themis/schedule.h"
#include "themis/sha256.h"
#include "themis/str.h"
#include "themis/summarize.h"
#include "themis/sweep.h"
#include "themis/system.h"
#include "themis/text.h"
#include "themis/train.h"
#include "themis/units.h"
#include "themis/version.h"
#include "themis/workload.h"

#endif
