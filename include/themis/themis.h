/* themis: closed-form cost model and chunk-schedule emulator for hierarchical collectives on
 * multi-dimensional networks (Rashidi et al., ISCA 2022). One header for the whole public API:
 * the headers `make install` installs. */
#ifndef THEMIS_THEMIS_H
#define THEMIS_THEMIS_H

#include "themis/api.h"
#include "themis/bound.h"
#include "themis/calibrate.h"
#include "themis/collective.h"
#include "themis/cost.h"
#include "themis/emulate.h"
#include "themis/error.h"
#include "themis/export.h"
#include "themis/optimize.h"
#include "themis/report.h"
#include "themis/run.h"
#include "themis/schedule.h"
#include "themis/summarize.h"
#include "themis/sweep.h"
#include "themis/system.h"
#include "themis/train.h"
#include "themis/units.h"
#include "themis/version.h"
#include "themis/workload.h"

#endif
