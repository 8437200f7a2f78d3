/*
 * module.c: the loadable module's magic block.  Each SQL type has its own
 * file (bloom.c, bloom_agg.c, cbloom.c, cms.c, topk.c); the shared glue is
 * declared in glue.h (doc/architecture.md, section 1.2).
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;
