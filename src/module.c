/*
 * module.c: the loadable module's magic block.  Each SQL type has its own
 * file (bloom.c, bloom_agg.c); shared glue is in glue.h.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;
