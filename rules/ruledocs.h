/*
 * ruledocs.h — rules/ID.md embedded at build time by tools/embed-docs.sh.
 * The table ends with { NULL, NULL }.  Static data, never freed.
 */
#ifndef CPL_RULEDOCS_H
#define CPL_RULEDOCS_H

struct cpl_ruledoc {
	const char *id;
	const char *text;
};

extern const struct cpl_ruledoc cpl_ruledocs[];

#endif
