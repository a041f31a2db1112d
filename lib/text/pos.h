/*
 * pos.h — positioned text: a place in a source file, a word of a command
 * line and an environment variable, each with where it was written.
 *
 * The plain data every reader (YAML, Python, shell) hands upwards.  Owns
 * nothing but what a comment says; cpl_pos.file is always borrowed (from
 * the workload or the scanned file that holds it).
 */
#ifndef CPL_TEXT_POS_H
#define CPL_TEXT_POS_H

#include <stddef.h>

/* A place in a source file (1-based); file NULL when there is none. */
struct cpl_pos {
	const char *file;
	int line;
	int column;
};

/* One word of a command line (argv element or shell word) and where. */
struct cpl_word {
	char *text;
	struct cpl_pos pos;
};

/* An environment variable; value NULL when unknown (Secret, fieldRef,
 * unresolved template, a ConfigMap not read). */
struct cpl_env {
	char *name;
	char *value;
	struct cpl_pos pos;
};

/* Frees each word's text, then the array (NULL is fine). */
void cpl_words_free(struct cpl_word *v, size_t n);

/* Frees each variable's name and value, then the array (NULL is fine). */
void cpl_envs_free(struct cpl_env *v, size_t n);
/* Copies n variables (names and values duplicated); NULL when n is 0. */
struct cpl_env *cpl_envs_dup(const struct cpl_env *v, size_t n);

#endif
