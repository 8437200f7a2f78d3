/*
 * bloom_slices.c: the bloom_slices index access method (doc/architecture.md,
 * section "The bloom_slices index"; doc/reference.md, "bloom_slices"): its
 * handler, the build, buildempty and insert callbacks, options and validate,
 * and the SQL functions bloom_slices_summarize and bloom_slices_info.  The
 * on-disk layout and the locking are described in bloom_slices.h, which
 * names the other files.
 */
#include "glue.h"

#include "access/amapi.h"
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/generic_xlog.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/pg_class.h"
#include "commands/vacuum.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "bloom_slices.h"

PG_FUNCTION_INFO_V1(bloom_slices_handler);
PG_FUNCTION_INFO_V1(bloom_slices_summarize);
PG_FUNCTION_INFO_V1(bloom_slices_info);

/* ---- build ---- */

typedef struct BuildState
{
	BslBuild	bs;
	double		tuples;
	MemoryContext tmp;
} BuildState;

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *arg)
{
	BuildState *st = arg;
	MemoryContext old;
	bytea	   *v;
	BslShape	shape;
	const uint8 *bits;

	if (isnull[0])
		return;
	old = MemoryContextSwitchTo(st->tmp);
	v = PG_DETOAST_DATUM(values[0]);
	bsl_check_value((uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &shape, &bits);
	MemoryContextSwitchTo(old);
	bsl_build_add(&st->bs, &shape, bits, tid);
	st->tuples++;
	MemoryContextReset(st->tmp);
}

static void
write_meta_page(Relation index, Page src)
{
	bsl_write_new_page(index, BSL_META_BLKNO, PageGetContents(src),
				   ((PageHeader) src)->pd_lower - BSL_CONTENTS_OFF, BSL_KIND_META,
				   InvalidBlockNumber);
}

static IndexBuildResult *
bsl_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	st;
	double		reltuples;
	PGAlignedBlock meta_page;
	BslMeta    *meta;
	ListCell   *lc;
	char	   *empty = palloc0(BSL_USABLE);

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	/* meta page and an empty pending page first: blocks 0 and 1 */
	if (bsl_extend_run(index, 2) != BSL_META_BLKNO)
		elog(ERROR, "bloom_slices: the meta page is not block 0");
	bsl_init_meta(meta_page.data);
	write_meta_page(index, meta_page.data);
	bsl_write_new_page(index, 1, empty, 0, BSL_KIND_PENDING, InvalidBlockNumber);

	memset(&st, 0, sizeof(st));
	bsl_build_init(&st.bs, index, (Size) maintenance_work_mem * 1024);
	st.tmp = AllocSetContextCreate(CurrentMemoryContext, "bloom_slices build row",
								   ALLOCSET_DEFAULT_SIZES);
	reltuples = table_index_build_scan(heap, index, indexInfo, true, true,
									   build_callback, &st, NULL);
	bsl_flush_all(&st.bs);

	if (list_length(st.bs.written) > BSL_MAX_BATCHES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("bloom_slices index \"%s\" would need %d batches, more than %d",
						RelationGetRelationName(index), list_length(st.bs.written),
						BSL_MAX_BATCHES),
				 errdetail("A build makes one batch per filter shape (bits, hashes, seed, layout and key type)."),
				 errhint("Index fewer shapes: build the filters with the same parameters.")));
	meta = BSL_META(meta_page.data);
	foreach(lc, st.bs.written)
		meta->dir[meta->nbatches++] = *(BslDirEntry *) lfirst(lc);
	meta->indexed_rows = st.bs.rows_written;
	meta->sum_k = st.bs.k_written;
	bsl_meta_set_used(meta_page.data);
	write_meta_page(index, meta_page.data);

	MemoryContextDelete(st.bs.cxt);
	MemoryContextDelete(st.tmp);
	pfree(empty);

	result = palloc(sizeof(IndexBuildResult));
	result->heap_tuples = reltuples;
	result->index_tuples = st.tuples;
	return result;
}

static void
bsl_buildempty(Relation index)
{
	Buffer		buf;

	/* meta page and an empty pending page, in the init fork */
	buf = ReadBufferExtended(index, INIT_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	bsl_init_meta(BufferGetPage(buf));
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);

	buf = ReadBufferExtended(index, INIT_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	START_CRIT_SECTION();
	bsl_init_page(BufferGetPage(buf), BSL_KIND_PENDING, InvalidBlockNumber);
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
}

/* ---- insert ---- */

static bool
bsl_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		   Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		   IndexInfo *indexInfo)
{
	bytea	   *v;
	BslShape	shape;
	const uint8 *bits;
	uint32		pages;

	if (isnull[0])
		return false;
	v = PG_DETOAST_DATUM(values[0]);
	bsl_check_value((uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, &shape, &bits);
	pages = bsl_pending_append(index, ht_ctid, (uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ);
	if (pages > BSL_PENDING_LIMIT_PAGES &&
		ConditionalLockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock))
	{
		(void) bsl_summarize(index, false, NULL);
		UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	}
	if ((Pointer) v != DatumGetPointer(values[0]))
		pfree(v);
	return false;
}

static bytea *
bsl_options(Datum reloptions, bool validate)
{
	if (validate && DatumGetPointer(reloptions) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bloom_slices indexes take no storage parameters")));
	return NULL;
}

static bool
bsl_validate(Oid opclassoid)
{
	return true;
}

Datum
bloom_slices_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 1;
	am->amsupport = 0;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = false;
#if PG_VERSION_NUM >= 180000
	am->amcanhash = false;
	am->amconsistentequality = false;
	am->amconsistentordering = false;
#endif
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = false;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
#if PG_VERSION_NUM >= 170000
	am->amcanbuildparallel = false;
#endif
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = false;
#if PG_VERSION_NUM >= 160000
	am->amsummarizing = false;
#endif
	am->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	am->amkeytype = InvalidOid;

	am->ambuild = bsl_build;
	am->ambuildempty = bsl_buildempty;
	am->aminsert = bsl_insert;
#if PG_VERSION_NUM >= 170000
	am->aminsertcleanup = NULL;
#endif
	am->ambulkdelete = bsl_bulkdelete;
	am->amvacuumcleanup = bsl_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = bsl_costestimate;
#if PG_VERSION_NUM >= 180000
	am->amgettreeheight = NULL;
#endif
	am->amoptions = bsl_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = bsl_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = bsl_beginscan;
	am->amrescan = bsl_rescan;
	am->amgettuple = NULL;
	am->amgetbitmap = bsl_getbitmap;
	am->amendscan = bsl_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;
#if PG_VERSION_NUM >= 180000
	am->amtranslatestrategy = NULL;
	am->amtranslatecmptype = NULL;
#endif
	PG_RETURN_POINTER(am);
}

/* ---- SQL functions ---- */

/* The index, opened with lockmode, after checking that it is one of ours. */
static Relation
open_bsl_index(Oid relid, LOCKMODE lockmode, bool must_own)
{
	Relation	index = index_open(relid, lockmode);

	if (index->rd_rel->relkind != RELKIND_INDEX ||
		index->rd_indam->ambuild != bsl_build)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a bloom_slices index", RelationGetRelationName(index))));
	if (RELATION_IS_OTHER_TEMP(index))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary indexes of other sessions")));
#if PG_VERSION_NUM >= 160000
	if (must_own && !object_ownercheck(RelationRelationId, relid, GetUserId()))
#else
	if (must_own && !pg_class_ownercheck(relid, GetUserId()))
#endif
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_INDEX, RelationGetRelationName(index));
	return index;
}

/* bloom_slices_summarize(regclass): the pending rows into batches now; returns them. */
Datum
bloom_slices_summarize(PG_FUNCTION_ARGS)
{
	Relation	index;
	uint64		rows;

	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("recovery is in progress"),
				 errhint("bloom_slices_summarize() cannot run during recovery.")));
	index = open_bsl_index(PG_GETARG_OID(0), RowExclusiveLock, true);
	LockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	rows = bsl_summarize(index, false, NULL);
	UnlockPage(index, BSL_META_BLKNO, ShareUpdateExclusiveLock);
	index_close(index, RowExclusiveLock);
	PG_RETURN_INT64((int64) rows);
}

/* bloom_slices_info(regclass): what the meta page counts. */
/*
 * The batch pages a lookup of one key reads at most: per batch its head, its
 * dead-row bitmap and k slices, a slice of sb bytes spanning at most
 * (sb + BSL_USABLE - 2) / BSL_USABLE + 1 pages.
 */
static int64
pages_per_lookup(Relation index, BslMeta *meta)
{
	char	   *hp = palloc(BSL_USABLE);
	BslHead    *h = (BslHead *) hp;
	int64		pages = 0;
	uint32		i;

	for (i = 0; i < meta->nbatches; i++)
	{
		if (!bsl_read_batch_page(index, meta->dir[i].head, meta->dir[i].head, BSL_KIND_HEAD, NULL, hp) ||
			!bsl_head_ok(h, &meta->dir[i]))
			bsl_corrupt(index, "a batch head is not valid", meta->dir[i].head);
		pages += 1 + h->n_dead_pages +
			(int64) h->k * ((h->slice_bytes + BSL_USABLE - 2) / BSL_USABLE + 1);
	}
	pfree(hp);
	return pages;
}

Datum
bloom_slices_info(PG_FUNCTION_ARGS)
{
	Relation	index = open_bsl_index(PG_GETARG_OID(0), AccessShareLock, false);
	BslMeta    *meta;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {0};

	/* its counts tell about the table's rows: for those who may read them */
	if (pg_class_aclcheck(index->rd_index->indrelid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(index->rd_index->indrelid));
	meta = bsl_read_meta(index);

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "bloom_slices_info: return type must be a row type");
	values[0] = Int64GetDatum(meta->nbatches);
	values[1] = Int64GetDatum((int64) meta->indexed_rows);
	values[2] = Int64GetDatum((int64) meta->dead_rows);
	values[3] = Int64GetDatum((int64) meta->pending_rows);
	values[4] = Int64GetDatum(meta->pending_pages);
	values[5] = Int64GetDatum(pages_per_lookup(index, meta));
	values[6] = Int64GetDatum(RelationGetNumberOfBlocks(index));
	pfree(meta);
	index_close(index, AccessShareLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
