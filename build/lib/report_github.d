build/lib/report_github.o: lib/report_github.c lib/report.h lib/finding.h \
 lib/workload.h lib/rule.h lib/util.h
lib/report.h:
lib/finding.h:
lib/workload.h:
lib/rule.h:
lib/util.h:
