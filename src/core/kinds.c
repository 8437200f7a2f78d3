/*
 * kinds.c: the table of sketch kinds, by the kind byte of the header
 * (doc/format.md).  The one core file that knows every kind: format.c
 * validates any value through this table, so adding a kind means a row here
 * (and its own core file with its check), not a case in format.c.
 */
#include "format.h"

#include "bloom_value.h"
#include "bloom_agg_state.h"
#include "cbloom.h"
#include "cms.h"
#include "topk.h"

static const bs_kind_def kinds[] = {
	[BS_KIND_BLOOM] = {"bloom", bs_bloom_check, BS_FORMAT_VERSION},
	[BS_KIND_BLOOM_AGG_STATE] = {"bloom_agg_state", bs_bloom_agg_state_check, BS_FORMAT_VERSION},
	[BS_KIND_CMS] = {"cms", bs_cms_check, BS_FORMAT_VERSION},
	[BS_KIND_TOPK] = {"topk", bs_topk_check, BS_TOPK_FORMAT},
	[BS_KIND_CBLOOM] = {"cbloom", bs_cbloom_check, BS_FORMAT_VERSION},
};

const bs_kind_def *
bs_kind_def_of(int kind)
{
	if (kind < 0 || kind >= (int) (sizeof(kinds) / sizeof(kinds[0])) || kinds[kind].name == NULL)
		return NULL;
	return &kinds[kind];
}
