/*
 * malloc_conf.c — the command's settings for jemalloc, which it links
 * when jemalloc is installed (Makefile, MALLOC); a build with the C
 * library's malloc links this too, and nothing reads it there.
 *
 * thp:always: jemalloc asks the kernel for transparent huge pages on its
 * memory (madvise(MADV_HUGEPAGE); systems whose THP setting is "never"
 * give none, and nothing changes).  A run builds its tree's facts and
 * texts in a heap that grows to tens of MiB and takes every page of it
 * fresh: with 4 KiB pages a third of a run's CPU time on the bench's
 * realistic-size tree was the kernel's (page faults, zeroing, TLB
 * shootdowns when jemalloc purged for calloc), 22,000 faults for 84 MiB;
 * with huge pages 4,500, and 20 to 30% less CPU on the real-repository
 * and realistic-size rows of make bench for about 10 MiB more peak
 * memory (docs/performance.md).
 *
 * MALLOC_CONF in the environment still wins (jemalloc reads it after
 * this string), so a user can turn it off with MALLOC_CONF=thp:default.
 * The name is jemalloc's, not cpl_*: jemalloc looks it up by that name.
 *
 * May include: nothing.
 */

extern const char *malloc_conf;
const char *malloc_conf = "thp:always";
