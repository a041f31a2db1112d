/*
 * unwind_stub.c — the two stack-unwinding functions a statically linked
 * jemalloc references, as stubs that walk no frame; compiled only into
 * the release binary when it links jemalloc (make dist), never into
 * libcpulint.a, the command or the tests.
 *
 * Why: jemalloc's heap profiler records call stacks with libgcc's
 * unwinder (_Unwind_Backtrace, _Unwind_GetIP).  Taking them from
 * libgcc_s.so.1 would make the release binary need a library besides the
 * C library, and libgcc_eh.a (-static-libgcc) needs a newer glibc
 * (_dl_find_object, glibc 2.35) than the README promises.  The profiler
 * is off unless MALLOC_CONF turns it on (prof:true), and this program
 * never does; should a user turn it on, it records empty stacks instead
 * of failing.  Builds that link jemalloc dynamically never see this file.
 *
 * The names are libgcc's (the Itanium C++ ABI's unwinding interface),
 * not cpl_*: the linker resolves jemalloc's references by them.  Only
 * their calling convention matters; the types are restated loosely so
 * that no unwind.h is needed.
 *
 * May include: system headers only.
 */
#include <stdint.h>

struct _Unwind_Context;
typedef int (*cpl_unwind_trace_fn)(struct _Unwind_Context *, void *);

int _Unwind_Backtrace(cpl_unwind_trace_fn fn, void *arg);
uintptr_t _Unwind_GetIP(struct _Unwind_Context *ctx);

/* _URC_END_OF_STACK: the walk ends before its first frame. */
int
_Unwind_Backtrace(cpl_unwind_trace_fn fn, void *arg)
{
	(void)fn;
	(void)arg;
	return 5;
}

/* Never called: no frame is ever handed out. */
uintptr_t
_Unwind_GetIP(struct _Unwind_Context *ctx)
{
	(void)ctx;
	return 0;
}
