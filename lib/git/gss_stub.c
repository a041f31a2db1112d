/*
 * gss_stub.c — the nine GSSAPI symbols a statically linked libgit2
 * references, as stubs that fail; compiled only into the release binary
 * (make dist), never into libcpulint.a, the command or the tests.
 *
 * Why: Debian's libgit2.a calls GSSAPI for HTTP "negotiate" (Kerberos)
 * authentication to remote repositories, and Debian ships no static
 * GSSAPI.  Linking libgssapi_krb5 dynamically would make the release
 * binary need it (and libkrb5, libk5crypto...) at run time.  This program
 * only reads local repositories, so negotiate authentication is never
 * reached; should libgit2 ever ask, every function answers GSS_S_FAILURE
 * and libgit2 treats negotiate as unavailable (it checks gss_indicate_mechs
 * first).  The normal build links libgit2 dynamically and never sees this
 * file.
 *
 * The names are GSSAPI's (RFC 2744), not cpl_*: the linker resolves
 * libgit2's references by them.  The types are restated from RFC 2744 so
 * that no GSSAPI header is needed; only their layout matters, and every
 * stub clears its outputs before failing.
 *
 * May include: system headers only.
 */
#include <stddef.h>
#include <stdint.h>

typedef uint32_t OM_uint32;

typedef struct gss_OID_desc_struct {
	OM_uint32 length;
	void *elements;
} gss_OID_desc, *gss_OID;

typedef struct gss_OID_set_desc_struct {
	size_t count;
	gss_OID elements;
} gss_OID_set_desc, *gss_OID_set;

typedef struct gss_buffer_desc_struct {
	size_t length;
	void *value;
} gss_buffer_desc, *gss_buffer_t;

typedef struct gss_name_struct *gss_name_t;
typedef struct gss_ctx_id_struct *gss_ctx_id_t;
typedef struct gss_cred_id_struct *gss_cred_id_t;
typedef struct gss_channel_bindings_struct *gss_channel_bindings_t;

/* Routine error 13 ("unspecified failure") in the routine-error field. */
#define GSS_S_FAILURE ((OM_uint32)13 << 16)

/* RFC 2744's declarations (and -Wmissing-prototypes') of the nine. */
extern gss_OID GSS_C_NT_HOSTBASED_SERVICE;
OM_uint32 gss_init_sec_context(OM_uint32 *minor, gss_cred_id_t cred,
			       gss_ctx_id_t *ctx, gss_name_t target,
			       gss_OID mech, OM_uint32 req_flags,
			       OM_uint32 time_req, gss_channel_bindings_t cb,
			       gss_buffer_t input, gss_OID *actual_mech,
			       gss_buffer_t output, OM_uint32 *ret_flags,
			       OM_uint32 *time_rec);
OM_uint32 gss_delete_sec_context(OM_uint32 *minor, gss_ctx_id_t *ctx,
				 gss_buffer_t output);
OM_uint32 gss_display_status(OM_uint32 *minor, OM_uint32 status,
			     int status_type, gss_OID mech,
			     OM_uint32 *message_context, gss_buffer_t text);
OM_uint32 gss_import_name(OM_uint32 *minor, gss_buffer_t input,
			  gss_OID name_type, gss_name_t *name);
OM_uint32 gss_indicate_mechs(OM_uint32 *minor, gss_OID_set *mechs);
OM_uint32 gss_release_buffer(OM_uint32 *minor, gss_buffer_t buffer);
OM_uint32 gss_release_name(OM_uint32 *minor, gss_name_t *name);
OM_uint32 gss_release_oid_set(OM_uint32 *minor, gss_OID_set *set);

/* 1.2.840.113554.1.2.1.4, the real value, for whoever compares it. */
static unsigned char hostbased_bytes[] = {
	0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x01, 0x04
};
static gss_OID_desc hostbased = { sizeof(hostbased_bytes), hostbased_bytes };
gss_OID GSS_C_NT_HOSTBASED_SERVICE = &hostbased;

/* Clears a status out-parameter; the stubs' common first step. */
static OM_uint32
failure(OM_uint32 *minor)
{
	if (minor)
		*minor = 0;
	return GSS_S_FAILURE;
}

OM_uint32
gss_init_sec_context(OM_uint32 *minor, gss_cred_id_t cred, gss_ctx_id_t *ctx,
		     gss_name_t target, gss_OID mech, OM_uint32 req_flags,
		     OM_uint32 time_req, gss_channel_bindings_t cb,
		     gss_buffer_t input, gss_OID *actual_mech,
		     gss_buffer_t output, OM_uint32 *ret_flags,
		     OM_uint32 *time_rec)
{
	(void)cred;
	(void)ctx;
	(void)target;
	(void)mech;
	(void)req_flags;
	(void)time_req;
	(void)cb;
	(void)input;
	if (actual_mech)
		*actual_mech = NULL;
	if (output) {
		output->length = 0;
		output->value = NULL;
	}
	if (ret_flags)
		*ret_flags = 0;
	if (time_rec)
		*time_rec = 0;
	return failure(minor);
}

OM_uint32
gss_delete_sec_context(OM_uint32 *minor, gss_ctx_id_t *ctx,
		       gss_buffer_t output)
{
	if (ctx)
		*ctx = NULL;
	if (output) {
		output->length = 0;
		output->value = NULL;
	}
	return failure(minor);
}

OM_uint32
gss_display_status(OM_uint32 *minor, OM_uint32 status, int status_type,
		   gss_OID mech, OM_uint32 *message_context, gss_buffer_t text)
{
	(void)status;
	(void)status_type;
	(void)mech;
	if (message_context)
		*message_context = 0;
	if (text) {
		text->length = 0;
		text->value = NULL;
	}
	return failure(minor);
}

OM_uint32
gss_import_name(OM_uint32 *minor, gss_buffer_t input, gss_OID name_type,
		gss_name_t *name)
{
	(void)input;
	(void)name_type;
	if (name)
		*name = NULL;
	return failure(minor);
}

OM_uint32
gss_indicate_mechs(OM_uint32 *minor, gss_OID_set *mechs)
{
	if (mechs)
		*mechs = NULL;
	return failure(minor);
}

OM_uint32
gss_release_buffer(OM_uint32 *minor, gss_buffer_t buffer)
{
	(void)buffer;
	return failure(minor);
}

OM_uint32
gss_release_name(OM_uint32 *minor, gss_name_t *name)
{
	(void)name;
	return failure(minor);
}

OM_uint32
gss_release_oid_set(OM_uint32 *minor, gss_OID_set *set)
{
	(void)set;
	return failure(minor);
}
