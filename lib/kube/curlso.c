/*
 * curlso.c — dlopen("libcurl.so.4") on first use and one dlsym per
 * libcurl function the kube client calls (see curlso.h for why).
 *
 * Invariant: the table is handed out only when every function was found
 * and the library is 7.85.0 or later; each slot then holds the library's
 * own function.  The list of functions is written once (CURL_FUNCTIONS):
 * it fills the table, names the symbols, and (with GCC or clang) checks at
 * compile time that each slot has the type <curl/curl.h> declares.
 */
#include "kube/curlso.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#define CURL_SONAME "libcurl.so.4"
#define CURL_MIN_VERSION 0x075500	/* 7.85.0: CURLOPT_PROTOCOLS_STR */
#define CURL_MIN_TEXT "7.85.0"
#define CURL_INSTALL "install libcurl 4 (package libcurl4 on Debian and " \
		     "Ubuntu, libcurl on Fedora)"

/*
 * Every function in use: table slot, libcurl name.  The first EARLY are in
 * every libcurl 4 and are resolved before the version is checked.
 */
#define EARLY 3
#define CURL_FUNCTIONS(X)				\
	X(global_init, curl_global_init)		\
	X(global_cleanup, curl_global_cleanup)		\
	X(version_info, curl_version_info)		\
	X(easy_init, curl_easy_init)			\
	X(easy_cleanup, curl_easy_cleanup)		\
	X(easy_setopt, curl_easy_setopt)		\
	X(easy_getinfo, curl_easy_getinfo)		\
	X(easy_perform, curl_easy_perform)		\
	X(easy_strerror, curl_easy_strerror)		\
	X(easy_header, curl_easy_header)		\
	X(free, curl_free)				\
	X(slist_append, curl_slist_append)		\
	X(slist_free_all, curl_slist_free_all)		\
	X(url, curl_url)				\
	X(url_cleanup, curl_url_cleanup)		\
	X(url_get, curl_url_get)			\
	X(url_set, curl_url_set)

#if defined(__GNUC__)
/* The slot's type is the declared function's (unevaluated: no link). */
#define SAME_TYPE(slot, fn)						\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(&fn),					\
		__typeof__(((struct cpl_curlso *)0)->slot)),		\
		"struct cpl_curlso." #slot " is not " #fn "'s type");
CURL_FUNCTIONS(SAME_TYPE)
#undef SAME_TYPE
#endif

/* One symbol to look up and where its address goes. */
struct curl_sym {
	const char *name;
	size_t offset;		/* in struct cpl_curlso */
};

#define SYM(slot, fn) { #fn, offsetof(struct cpl_curlso, slot) },
static const struct curl_sym syms[] = { CURL_FUNCTIONS(SYM) };
#undef SYM

static struct cpl_curlso table;
static bool loaded;

/*
 * Fills t with the first n symbols from handle h; -1 with err naming the
 * first missing one.
 */
static int
resolve(struct cpl_curlso *t, void *h, size_t n, struct cpl_error *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		void *p = dlsym(h, syms[i].name);

		if (p == NULL) {
			cpl_error_set(err, NULL, 0, 0, "live mode needs "
				      "libcurl 4 (" CURL_SONAME ") "
				      CURL_MIN_TEXT " or later, and the "
				      "installed one has no %s; "
				      CURL_INSTALL, syms[i].name);
			return -1;
		}
		/* POSIX: a function's address fits a void *. */
		memcpy((char *)t + syms[i].offset, &p, sizeof(p));
	}
	return 0;
}

int
cpl_curlso_load(const struct cpl_curlso **out, struct cpl_error *err)
{
	struct cpl_curlso t;
	const curl_version_info_data *v;
	const char *why;
	void *h;

	*out = NULL;
	if (loaded) {
		*out = &table;
		return 0;
	}
	h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		why = dlerror();
		cpl_error_set(err, NULL, 0, 0, "live mode needs libcurl 4 ("
			      CURL_SONAME "), which cannot be loaded (%s); "
			      CURL_INSTALL, why ? why : "unknown error");
		return -1;
	}
	/* Kept open: a handle is counted, so a retry gets the same one.
	 * The version first: an old libcurl lacks newer functions. */
	memset(&t, 0, sizeof(t));
	if (resolve(&t, h, EARLY, err) < 0)
		return -1;
	v = t.version_info(CURLVERSION_NOW);
	if (v == NULL || v->version_num < CURL_MIN_VERSION) {
		cpl_error_set(err, NULL, 0, 0, "live mode needs libcurl 4 ("
			      CURL_SONAME ") " CURL_MIN_TEXT " or later, "
			      "and the installed one is %s; " CURL_INSTALL,
			      v && v->version ? v->version : "older");
		return -1;
	}
	if (resolve(&t, h, CPL_ARRAY_LEN(syms), err) < 0)
		return -1;
	table = t;
	loaded = true;
	*out = &table;
	return 0;
}
