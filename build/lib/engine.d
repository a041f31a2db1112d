build/lib/engine.o: lib/engine.c lib/engine.h lib/finding.h \
 lib/workload.h lib/util.h
lib/engine.h:
lib/finding.h:
lib/workload.h:
lib/util.h:
