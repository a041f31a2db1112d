build/lib/report_text.o: lib/report_text.c lib/report.h lib/finding.h \
 lib/workload.h lib/rule.h lib/util.h
lib/report.h:
lib/finding.h:
lib/workload.h:
lib/rule.h:
lib/util.h:
