/*
 * curlso.h — libcurl loaded at run time: dlopen("libcurl.so.4") the first
 * time live mode needs it, and every libcurl function the kube client
 * calls looked up by name with dlsym.
 *
 * Why: a binary that links libcurl does not start where libcurl is not
 * installed, yet only live mode talks HTTP; loaded on demand, the release
 * binary needs nothing but the C library to lint files.  Looking symbols
 * up by plain name also keeps the binary independent of how a
 * distribution built libcurl: Debian's exports versioned names
 * (CURL_OPENSSL_4), others do not, and dlsym finds the default version of
 * either.  Every build (normal, asan, release) goes through this module,
 * so the tests exercise what ships.
 *
 * Only the types and constants of <curl/curl.h> are used when compiling;
 * nothing links against libcurl.  Libcurl 7.85.0 or later is required
 * (CURLOPT_PROTOCOLS_STR); an older one is refused here with its version.
 *
 * Ownership: the table is loaded once and stays valid until the process
 * exits; the library is never unloaded (libcurl and its TLS library keep
 * global state).  Not thread-safe: load before starting threads.
 *
 * May include: util.h and system headers; included by kube/kubeclient.c
 * and by the command (to refuse live mode early).
 */
#ifndef CPL_CURLSO_H
#define CPL_CURLSO_H

#include <curl/curl.h>

#include "util.h"

/* The libcurl functions in use, each the library's own. */
struct cpl_curlso {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	curl_version_info_data *(*version_info)(CURLversion age);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *curl);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	CURLHcode (*easy_header)(CURL *curl, const char *name, size_t index,
				 unsigned int origin, int request,
				 struct curl_header **hout);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *list,
					   const char *line);
	void (*slist_free_all)(struct curl_slist *list);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *u);
	CURLUcode (*url_get)(CURLU *u, CURLUPart part, char **out,
			     unsigned int flags);
	CURLUcode (*url_set)(CURLU *u, CURLUPart part, const char *content,
			     unsigned int flags);
};

/*
 * Loads libcurl.so.4 (once) into *out.  -1 with err set to one line that
 * says live mode needs libcurl 4 (libcurl.so.4) and why it cannot be used
 * (not installed, a function missing, too old).  After a success, later
 * calls return the same table at once; after a failure they try again.
 */
int cpl_curlso_load(const struct cpl_curlso **out, struct cpl_error *err);

#endif
