/*
 * yaml-parse-floor.c — the floor make bench compares the whole-tree run
 * against (with ripgrep reading the tree): read each named file once and
 * run libyaml's parser over every event, doing nothing else.  Prints the
 * number of events; exits 1 when a file cannot be read or parsed.
 * Includes only libc and libyaml.
 *
 *   make build/bench/yaml-parse-floor     (make bench builds it)
 *   build/bench/yaml-parse-floor FILE.yaml...
 */
#include <stdio.h>
#include <stdlib.h>
#include <yaml.h>

int
main(int argc, char **argv)
{
	unsigned long events = 0;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		yaml_parser_t p;
		yaml_event_t ev;
		int done = 0;

		if (f == NULL) {
			perror(argv[i]);
			rc = 1;
			continue;
		}
		yaml_parser_initialize(&p);
		yaml_parser_set_input_file(&p, f);
		while (!done) {
			if (!yaml_parser_parse(&p, &ev)) {
				fprintf(stderr, "%s: parse error\n", argv[i]);
				rc = 1;
				break;
			}
			done = ev.type == YAML_STREAM_END_EVENT;
			yaml_event_delete(&ev);
			events++;
		}
		yaml_parser_delete(&p);
		fclose(f);
	}
	printf("%lu events\n", events);
	return rc;
}
