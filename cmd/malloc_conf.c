/*
 * malloc_conf.c — the command's settings for jemalloc, which it links
 * when jemalloc is installed (Makefile, MALLOC); a build with the C
 * library's malloc links this too, and nothing reads it there.
 *
 * A run takes nearly all its memory fresh from the kernel: every text of
 * the tree is read before the first group is judged, and the heap grows
 * to tens of MiB (84 MiB on make bench's realistic-size tree).  Page
 * faults are what that costs, and on a virtual machine they are dear: on
 * the bench's machine touching 100 MiB of new heap takes 340 ms in 4 KiB
 * pages and 7 ms in huge pages, and the kernel's part was a third of a
 * run's CPU time on that tree (22,000 faults).
 *
 *  - thp:always: jemalloc asks for transparent huge pages on its memory
 *    (madvise(MADV_HUGEPAGE); where the system's THP setting is "never"
 *    nothing changes).  Faults on that tree 22,000 -> 4,700.
 *  - narenas:1: one arena for every thread.  The pipeline's threads
 *    allocate the texts and facts that the main thread frees later, and
 *    memory freed into one thread's arena is reused by that arena only;
 *    with one arena it is reused by all.  Faults 4,700 -> 2,800, about
 *    8% less CPU again; each thread keeps its own cache of small blocks
 *    (tcache), so the threads meet at the arena's locks only when those
 *    caches fill or empty.
 *
 * Together about 30% less CPU on the realistic-size and real-repository
 * rows of make bench, and about 12 MiB more peak memory (a huge page is
 * 2 MiB; docs/performance.md).  MALLOC_CONF in the environment still
 * wins (jemalloc reads it after this string): thp:default there gives
 * the system's pages back, narenas:N (jemalloc's default is four per
 * CPU) more arenas.
 *
 * The name is jemalloc's, not cpl_*: jemalloc looks it up by that name.
 *
 * May include: nothing.
 */

extern const char *malloc_conf;
const char *malloc_conf = "thp:always,narenas:1";
