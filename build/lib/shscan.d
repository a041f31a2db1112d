build/lib/shscan.o: lib/shscan.c lib/shscan.h lib/workload.h \
 lib/yamldoc.h lib/util.h
lib/shscan.h:
lib/workload.h:
lib/yamldoc.h:
lib/util.h:
