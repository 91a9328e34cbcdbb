// SPDX-License-Identifier: GPL-2.0
/*
 * Where cqpool's trace events (cqpool_trace.h) are made.  The takeover,
 * a module of its own, emits its two through the exports.
 */
#include "cqpool_internal.h"

#define CREATE_TRACE_POINTS
#include "cqpool_trace.h"

EXPORT_TRACEPOINT_SYMBOL_GPL(cqpool_takeover_get);
EXPORT_TRACEPOINT_SYMBOL_GPL(cqpool_takeover_put);
