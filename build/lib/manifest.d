build/lib/manifest.o: lib/manifest.c lib/loader.h lib/util.h \
 lib/workload.h lib/yamldoc.h
lib/loader.h:
lib/util.h:
lib/workload.h:
lib/yamldoc.h:
