build/lib/report.o: lib/report.c lib/report.h lib/finding.h \
 lib/workload.h lib/rule.h lib/util.h
lib/report.h:
lib/finding.h:
lib/workload.h:
lib/rule.h:
lib/util.h:
