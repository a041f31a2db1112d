build/lib/report_json.o: lib/report_json.c lib/report.h lib/finding.h \
 lib/workload.h lib/rule.h lib/util.h
lib/report.h:
lib/finding.h:
lib/workload.h:
lib/rule.h:
lib/util.h:
