/*
 * mhdso.c — dlopen("libmicrohttpd.so.12") on first use and one dlsym per
 * function the HTTP server calls (see mhdso_int.h for why).
 *
 * Invariant: the table is handed out only when every function was found
 * and the library can do TLS; each slot then holds the library's own
 * function.  The list of functions is written once (MHD_FUNCTIONS): it
 * fills the table, names the symbols, and (with GCC or clang) checks at
 * compile time that each slot has the type <microhttpd.h> declares.
 */
#include "http/mhdso_int.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#define MHD_SONAME "libmicrohttpd.so.12"
#define MHD_INSTALL "install libmicrohttpd 12 with GnuTLS (package " \
		    "libmicrohttpd12 on Debian and Ubuntu)"

#define MHD_FUNCTIONS(X)						\
	X(get_version, MHD_get_version)					\
	X(is_feature_supported, MHD_is_feature_supported)		\
	X(start_daemon, MHD_start_daemon)				\
	X(quiesce_daemon, MHD_quiesce_daemon)				\
	X(stop_daemon, MHD_stop_daemon)					\
	X(create_response_from_buffer, MHD_create_response_from_buffer) \
	X(add_response_header, MHD_add_response_header)			\
	X(queue_response, MHD_queue_response)				\
	X(destroy_response, MHD_destroy_response)			\
	X(lookup_connection_value, MHD_lookup_connection_value)		\
	X(get_connection_info, MHD_get_connection_info)

#if defined(__GNUC__)
#define SAME_TYPE(slot, fn)						\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(&fn),					\
		__typeof__(((struct cpl_mhdso *)0)->slot)),		\
		"struct cpl_mhdso." #slot " is not " #fn "'s type");
MHD_FUNCTIONS(SAME_TYPE)
#undef SAME_TYPE
#endif

/* One symbol to look up and where its address goes. */
struct sym {
	const char *name;
	size_t offset;		/* in struct cpl_mhdso */
};

#define SYM(slot, fn) { #fn, offsetof(struct cpl_mhdso, slot) },
static const struct sym syms[] = { MHD_FUNCTIONS(SYM) };
#undef SYM

static struct cpl_mhdso table;
static bool loaded;

int
cpl_mhdso_load(const struct cpl_mhdso **out, struct cpl_error *err)
{
	struct cpl_mhdso t;
	const char *why;
	size_t i;
	void *h;

	*out = NULL;
	if (loaded) {
		*out = &table;
		return 0;
	}
	h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		why = dlerror();
		cpl_error_set(err, NULL, 0, 0, "serve needs libmicrohttpd ("
			      MHD_SONAME "), which cannot be loaded (%s); "
			      MHD_INSTALL, why ? why : "unknown error");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	for (i = 0; i < CPL_ARRAY_LEN(syms); i++) {
		void *p = dlsym(h, syms[i].name);

		if (p == NULL) {
			cpl_error_set(err, NULL, 0, 0, "serve needs "
				      "libmicrohttpd (" MHD_SONAME "), and the "
				      "installed one has no %s; " MHD_INSTALL,
				      syms[i].name);
			return -1;
		}
		/* POSIX: a function's address fits a void *. */
		memcpy((char *)&t + syms[i].offset, &p, sizeof(p));
	}
	if (t.is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		cpl_error_set(err, NULL, 0, 0, "serve needs libmicrohttpd "
			      "with TLS, and the installed one (%s) was built "
			      "without it; " MHD_INSTALL, t.get_version());
		return -1;
	}
	table = t;
	loaded = true;
	*out = &table;
	return 0;
}
