build/lib/finding.o: lib/finding.c lib/finding.h lib/workload.h
lib/finding.h:
lib/workload.h:
