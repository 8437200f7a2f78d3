/*
 * bloom_slices.h: the bloom_slices index access method (doc/architecture.md,
 * section "The bloom_slices index"; doc/reference.md, "bloom_slices").
 *
 * The index answers "in which rows' filters is this key?" by reading bit
 * slices: fixed bloom values of one shape (bits, hashes, seed, layout, key
 * family) are summarised in batches, each stored transposed (bitslice.h),
 * one slice of the batch's rows per filter bit.  A build makes one batch
 * per shape whatever its size: runs of rows that fill the memory are
 * transposed into a temporary file and laid end to end, slice by slice.  A lookup of a key computes
 * the key's k bit positions for the batch's shape exactly as @> does
 * (bs_layout_positions, checked against bs_layout_contains by a unit test),
 * ANDs those k slices and the batch's live-row mask, and returns the rows
 * whose bit survives: exactly the rows whose own @> is true.
 *
 * Pages (block 0 the meta page; every page has the standard layout, its
 * kind in the special space):
 *   meta      counters, the head and tail of the pending list, and the
 *             directory of batches (first block and page count of each);
 *   pending   new rows, the whole bloom value of each, appended as items
 *             that may span pages (a chunk says where in the value it
 *             lies); lookups test them one by one;
 *   batch     contiguous pages: a head page (shape, row count, slice
 *             geometry), the dead-row bitmap (one bit a row), the heap
 *             TIDs of its rows, then its m slices end to end (slice j at
 *             byte j * slice_bytes of the slice pages' contents, so a
 *             slice of a large batch spans pages).
 *
 * Every change is WAL-logged with the generic WAL API (access/generic_xlog.h),
 * as contrib/bloom does.  Locking, besides buffer locks: a heavyweight lock
 * on the meta page's tag (LockPage), AccessShare for a lookup,
 * ShareUpdateExclusive for the one process that summarises or vacuums,
 * which takes AccessExclusive for the moment it swaps the directory and
 * the pending head.  So a lookup never sees a directory and a pending list
 * that disagree, and pages freed by a summarise are reused only after every
 * lookup that could read them has ended.  Inserts take no heavyweight lock:
 * the meta page's buffer lock orders their appends.  On a hot standby
 * (where replay takes no such lock) a lookup checks the meta page's
 * generation after reading and reads again if a summarise was replayed
 * meanwhile.
 *
 * This header holds what its files share: the on-page structs, the
 * constants and the functions that one file calls in another.  The files:
 *   bloom_slices.c          the handler; build, buildempty and insert;
 *                           options, validate; the SQL functions
 *                           bloom_slices_summarize and bloom_slices_info;
 *   bloom_slices_page.c     shapes and the check of an indexed value; pages,
 *                           the meta page, extension, new pages;
 *   bloom_slices_batch.c    batches: building in memory, writing, reading
 *                           back;
 *   bloom_slices_pending.c  the pending list; summarise; the sweep of free
 *                           pages;
 *   bloom_slices_scan.c     scans (getbitmap) and the cost estimate;
 *   bloom_slices_vacuum.c   bulkdelete and vacuumcleanup.
 */
#ifndef BS_BLOOM_SLICES_H
#define BS_BLOOM_SLICES_H

#include "access/amapi.h"
#include "nodes/pathnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

#define BSL_MAGIC 0x42534C31	/* "BSL1" */
#define BSL_VERSION 1
#define BSL_META_BLKNO 0
#define BSL_PAGE_ID 0xFF8B

/* page kinds */
#define BSL_KIND_META 1
#define BSL_KIND_PENDING 2
#define BSL_KIND_HEAD 3
#define BSL_KIND_TIDS 4
#define BSL_KIND_SLICES 5
#define BSL_KIND_DELETED 6
#define BSL_KIND_DEAD 7

typedef struct BslOpaque
{
	BlockNumber next;			/* pending: the next page; batch: its head */
	uint16		kind;
	uint16		page_id;
} BslOpaque;

#define BSL_OPAQUE(page) ((BslOpaque *) PageGetSpecialPointer(page))
#define BSL_CONTENTS_OFF MAXALIGN(SizeOfPageHeaderData)
/* bytes of a page below the special space */
#define BSL_USABLE (BLCKSZ - BSL_CONTENTS_OFF - MAXALIGN(sizeof(BslOpaque)))

/* a batch in the directory: its pages are head .. head + npages - 1 */
typedef struct BslDirEntry
{
	BlockNumber head;
	uint32		npages;
} BslDirEntry;

typedef struct BslMeta
{
	uint32		magic;
	uint32		version;
	uint64		generation;		/* +1 at every swap of directory or pending head */
	BlockNumber pending_head;
	BlockNumber pending_tail;
	uint16		pending_off;	/* the first item of the head page not summarised */
	uint16		spare;
	uint32		pending_pages;	/* pages from head to tail */
	uint64		pending_rows;	/* complete entries appended and not summarised */
	uint64		indexed_rows;	/* rows in batches, dead ones included */
	uint64		dead_rows;		/* rows of batches marked dead */
	uint64		sum_k;			/* the hashes of every batch, summed (the cost) */
	uint32		nbatches;
	BslDirEntry dir[FLEXIBLE_ARRAY_MEMBER];
} BslMeta;

#define BSL_MAX_BATCHES ((int) ((BSL_USABLE - offsetof(BslMeta, dir)) / sizeof(BslDirEntry)))
#define BSL_META(page) ((BslMeta *) PageGetContents(page))

typedef struct BslHead
{
	uint64		m;
	uint64		seed;
	uint32		k;
	uint32		layout;
	uint32		family;
	uint32		nrows;
	uint32		ndead;
	uint32		slice_bytes;	/* ceil(nrows / 8) */
	uint32		tids_per_page;
	uint32		n_dead_pages;	/* ceil(slice_bytes / BSL_USABLE) */
	uint32		n_tid_pages;
	uint32		n_slice_pages;	/* ceil(m * slice_bytes / BSL_USABLE) */
} BslHead;

/* rows a batch may hold (a build past it starts another batch of the shape) */
#define BSL_MAX_ROWS ((uint32) 1 << 31)
#define BSL_TIDS_PER_PAGE ((uint32) (BSL_USABLE / sizeof(ItemPointerData)))
/* a batch's pages: head, dead-row bitmap, TIDs, slices */
#define BSL_DEAD_BLK(e) ((e)->head + 1)
#define BSL_TID_BLK(e, h) ((e)->head + 1 + (h)->n_dead_pages)
#define BSL_SLICE_BLK(e, h) ((e)->head + 1 + (h)->n_dead_pages + (h)->n_tid_pages)

/* The least memory a build or summarise uses for its rows, whatever maintenance_work_mem. */
#define BSL_BATCH_BYTES ((Size) 64 * 1024 * 1024)
/* Filters larger than this are refused: a run in memory holds at least 4 of them. */
#define BSL_MAX_FILTER_BYTES (BSL_BATCH_BYTES / 8)
/* a batch's buffer starts at about this size and doubles */
#define BSL_FIRST_BYTES ((Size) 256 * 1024)
/* Pending pages past which an insert summarises (GIN's default pending list limit). */
#define BSL_PENDING_LIMIT_PAGES ((uint32) (4 * 1024 * 1024 / BLCKSZ))

/* a pending item: a chunk of one row's bloom value */
typedef struct BslChunk
{
	ItemPointerData tid;
	uint16		flags;
	uint32		off;			/* where in the value the chunk's bytes go */
	uint32		total;			/* the value's bytes */
	char		data[FLEXIBLE_ARRAY_MEMBER];
} BslChunk;

#define BSL_CHUNK_DEAD 1
#define BSL_CHUNK_HDR offsetof(BslChunk, data)
/* a chunk is not started in less room than this (the next page takes it) */
#define BSL_MIN_CHUNK 256

/* The shape that groups rows. */
typedef struct BslShape
{
	uint64		m;
	uint64		seed;
	uint32		k;
	uint32		layout;
	uint32		family;
} BslShape;

/*
 * Batches being built (bloom_slices_batch.c), one builder a shape: rows in
 * memory, and the runs of rows already transposed into the spill file.
 */
typedef struct BslRun
{
	uint32		n;				/* rows */
	long		blk;			/* where it starts in the spill file: n TIDs, then m slices */
} BslRun;

typedef struct BslBuilder
{
	BslShape	shape;
	Size		fbytes;			/* bytes of a row: ceil(m / 8) */
	uint32		cap;			/* rows of a full run in memory */
	uint32		n;
	uint32		alloc;			/* rows the buffers hold: grows to cap */
	uint8	   *rows;			/* alloc rows of fbytes */
	ItemPointerData *tids;
	uint64		total;			/* rows of the batch: spilled runs and rows in memory */
	List	   *runs;			/* BslRun * spilled */
	List	   *old;			/* BslDirEntry * of index batches rewritten without dead rows */
	struct BslBuilder *next;
} BslBuilder;

typedef struct BslBuild
{
	Relation	index;
	BslBuilder *builders;
	BslBuilder *last;			/* the last one used, tried first */
	Size		memory;			/* bytes of rows all builders' buffers hold */
	Size		budget;			/* maintenance_work_mem, at least BSL_BATCH_BYTES */
	bool		reuse;			/* batches may take runs of free pages */
	struct BufFile *spill;		/* runs transposed, or NULL */
	long		spill_blks;		/* blocks written to it */
	List	   *written;		/* BslDirEntry * of the batches written */
	uint64		rows_written;
	uint64		k_written;		/* sum of k of the batches written */
	MemoryContext cxt;
} BslBuild;

/* What a walk of the pending list does with each complete entry. */
typedef void (*pending_fn) (void *arg, ItemPointer tid, uint8 *val, uint32 len);

/* bloom_slices_page.c */
extern bool bsl_shape_eq(const BslShape *a, const BslShape *b);
extern void bsl_check_value(uint8 *buf, Size len, BslShape *shape, const uint8 **bits);
extern void bsl_init_page(Page page, uint16 kind, BlockNumber next);
extern bool bsl_page_is(Page page, uint16 kind);
extern void bsl_init_meta(Page page);
extern void bsl_meta_set_used(Page page);
extern BslMeta *bsl_check_meta(Relation index, Page page);
extern BslMeta *bsl_read_meta(Relation index);
extern BlockNumber bsl_extend_run(Relation index, uint32 npages);
extern Buffer bsl_new_pending_buffer(Relation index);
extern void bsl_write_new_page(Relation index, BlockNumber blk, const char *contents, Size used,
							   uint16 kind, BlockNumber next);

/* bloom_slices_batch.c */
extern void bsl_build_init(BslBuild *bs, Relation index, Size budget);
extern void bsl_flush_all(BslBuild *bs);
extern void bsl_build_add(BslBuild *bs, const BslShape *shape, const uint8 *bits, ItemPointer tid);
extern bool bsl_read_batch_page(Relation index, BlockNumber blk, BlockNumber head, uint16 kind,
								BufferAccessStrategy strategy, char *out);
extern bool bsl_read_batch_bytes(Relation index, const BslDirEntry *e, BlockNumber first,
								 uint16 kind, uint64 off, Size len, BufferAccessStrategy strategy,
								 char *out);
extern bool bsl_batch_loadable(const BslBuild *bs, const BslHead *h);
extern bool bsl_head_ok(const BslHead *h, const BslDirEntry *e);
extern void bsl_head_shape(const BslHead *h, BslShape *shape);
extern void bsl_corrupt(Relation index, const char *what, BlockNumber blk);
extern uint32 bsl_load_batch(BslBuild *bs, const BslDirEntry *e, BufferAccessStrategy strategy);
extern uint32 bsl_stream_batch(BslBuild *bs, const BslDirEntry *e, BufferAccessStrategy strategy);

/* bloom_slices_pending.c */
extern uint32 bsl_pending_append(Relation index, ItemPointer tid, const uint8 *val, uint32 len);
extern bool bsl_pending_walk(Relation index, BlockNumber blk, OffsetNumber off,
							 BlockNumber stop_blk, OffsetNumber stop_off,
							 pending_fn fn, void *arg, BufferAccessStrategy strategy,
							 uint32 *npages, uint64 *entries);
extern uint64 bsl_summarize(Relation index, bool rebuild, BufferAccessStrategy strategy);

/* bloom_slices_scan.c */
extern IndexScanDesc bsl_beginscan(Relation index, int nkeys, int norderbys);
extern void bsl_rescan(IndexScanDesc scan, ScanKey scankey, int nscankeys,
					   ScanKey orderbys, int norderbys);
extern void bsl_endscan(IndexScanDesc scan);
extern int64 bsl_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void bsl_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
							 Cost *indexStartupCost, Cost *indexTotalCost,
							 Selectivity *indexSelectivity, double *indexCorrelation,
							 double *indexPages);

/* bloom_slices_vacuum.c */
extern IndexBulkDeleteResult *bsl_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback, void *callback_state);
extern IndexBulkDeleteResult *bsl_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats);

#endif							/* BS_BLOOM_SLICES_H */
