build/lib/yamldoc.o: lib/yamldoc.c lib/yamldoc.h lib/util.h
lib/yamldoc.h:
lib/util.h:
