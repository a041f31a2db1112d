build/ruledocs.o: build/ruledocs.c lib/ruledocs.h
lib/ruledocs.h:
