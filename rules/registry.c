/*
 * registry.c — the rule table, built from rules/rules.def, and lookups
 * into it and into the embedded rule documentation (rules/ID.md).
 */
#include <string.h>

#include "model/rule.h"
#include "ruledocs.h"

#define CPL_RULE(sym) extern const struct cpl_rule sym;
#include "rules.def"
#undef CPL_RULE

static const struct cpl_rule *const table[] = {
#define CPL_RULE(sym) &sym,
#include "rules.def"
#undef CPL_RULE
	NULL,
};

const struct cpl_rule *const *
cpl_rules_all(size_t *n)
{
	*n = CPL_ARRAY_LEN(table) - 1;
	return table;
}

const struct cpl_rule *
cpl_rule_find(const char *id_or_name)
{
	size_t i;

	for (i = 0; table[i]; i++)
		if (strcasecmp(table[i]->id, id_or_name) == 0 ||
		    strcmp(table[i]->name, id_or_name) == 0)
			return table[i];
	return NULL;
}

const char *
cpl_rule_doc(const struct cpl_rule *r)
{
	size_t i;

	for (i = 0; cpl_ruledocs[i].id; i++)
		if (strcmp(cpl_ruledocs[i].id, r->id) == 0)
			return cpl_ruledocs[i].text;
	return NULL;
}
