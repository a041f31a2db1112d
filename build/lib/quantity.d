build/lib/quantity.o: lib/quantity.c lib/quantity.h lib/util.h
lib/quantity.h:
lib/util.h:
