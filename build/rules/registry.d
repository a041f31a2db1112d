build/rules/registry.o: rules/registry.c lib/rule.h lib/finding.h \
 lib/workload.h lib/util.h lib/ruledocs.h rules/rules.def
lib/rule.h:
lib/finding.h:
lib/workload.h:
lib/util.h:
lib/ruledocs.h:
rules/rules.def:
