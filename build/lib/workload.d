build/lib/workload.o: lib/workload.c lib/workload.h lib/util.h
lib/workload.h:
lib/util.h:
