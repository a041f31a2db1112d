/*
 * check_main.h — the main() every unit test shares: run one suite, print
 * check's summary line (which tests/run-unit.sh counts), exit non-zero on
 * any failure.  Include once, after defining the suite function.
 */
#ifndef CPL_CHECK_MAIN_H
#define CPL_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#define CPL_CHECK_MAIN(suite_fn)					\
	int								\
	main(void)							\
	{								\
		SRunner *sr = srunner_create(suite_fn());		\
		int failed;						\
									\
		srunner_run_all(sr, CK_NORMAL);				\
		failed = srunner_ntests_failed(sr);			\
		srunner_free(sr);					\
		return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;	\
	}

#endif
