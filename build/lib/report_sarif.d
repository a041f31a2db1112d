build/lib/report_sarif.o: lib/report_sarif.c lib/report.h lib/finding.h \
 lib/workload.h lib/rule.h lib/util.h
lib/report.h:
lib/finding.h:
lib/workload.h:
lib/rule.h:
lib/util.h:
