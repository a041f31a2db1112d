/*
 * mhdso_int.h — libmicrohttpd loaded at run time: dlopen("libmicrohttpd.so.12")
 * the first time `serve` needs it, and every function the HTTP server
 * calls looked up by name with dlsym (as kube/curlso.h does for libcurl).
 *
 * Why: only `serve` speaks HTTP as a server; linked, libmicrohttpd and
 * GnuTLS would be needed by every run of the release binary, which needs
 * nothing but the C library.  Loaded on demand, the release binary runs
 * `serve` where libmicrohttpd 12 (Debian: libmicrohttpd12, built with
 * GnuTLS) is installed, as in the image deploy/ describes, and says
 * which package to install elsewhere.  Every build (normal, asan,
 * release) goes through this module, so the tests exercise what ships.
 *
 * Only the types and constants of <microhttpd.h> are used when
 * compiling; nothing links against libmicrohttpd.
 *
 * Ownership: the table is loaded once and stays valid until the process
 * exits; the library is never unloaded.  Not thread-safe: load before
 * starting threads.
 *
 * May include: util.h and system headers.
 */
#ifndef CPL_MHDSO_H
#define CPL_MHDSO_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#include "util.h"

/* The libmicrohttpd functions in use, each the library's own. */
struct cpl_mhdso {
	const char *(*get_version)(void);
	enum MHD_Result (*is_feature_supported)(enum MHD_FEATURE feature);
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
					   MHD_AcceptPolicyCallback apc,
					   void *apc_cls,
					   MHD_AccessHandlerCallback dh,
					   void *dh_cls, ...);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *daemon);
	void (*stop_daemon)(struct MHD_Daemon *daemon);
	struct MHD_Response *(*create_response_from_buffer)(
		size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *response,
					       const char *header,
					       const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
					  unsigned int status_code,
					  struct MHD_Response *response);
	void (*destroy_response)(struct MHD_Response *response);
	const char *(*lookup_connection_value)(
		struct MHD_Connection *connection, enum MHD_ValueKind kind,
		const char *key);
	const union MHD_ConnectionInfo *(*get_connection_info)(
		struct MHD_Connection *connection,
		enum MHD_ConnectionInfoType info_type, ...);
};

/*
 * Loads libmicrohttpd.so.12 (once) into *out.  -1 with err set to one
 * line that says serve needs it, why it cannot be used (not installed,
 * a function missing, no TLS) and which package to install.  After a
 * success, later calls return the same table at once.
 */
int cpl_mhdso_load(const struct cpl_mhdso **out, struct cpl_error *err);

#endif
