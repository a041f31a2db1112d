/*
 * escape.h — the one way text from an input reaches an output line: file
 * names, object and container names, messages that quote them, server
 * answers.  Every reporter and every line the command writes on standard
 * error goes through here (JSON and SARIF through jsonw.h, which keeps
 * the same promises in JSON's own escapes).
 *
 * The promises, on every output path:
 *
 *   - no raw control character: C0 controls, DEL, the C1 controls
 *     U+0080..U+009F and bytes that are not UTF-8 are shown as escapes
 *     (\n \r \t, \xHH for a control or a stray byte, \u0085 for a C1
 *     code point), so no ESC, CSI or OSC sequence reaches a terminal and
 *     no value ends a line; so are the invisible format characters
 *     that disguise a name (U+202E and the other bidirectional controls,
 *     zero-width characters, the soft hyphen, tags: \u202e, \U000e0001),
 *     the line and paragraph separators and the noncharacters (U+FFFE and
 *     U+FFFF are not XML characters);
 *   - no line a CI runner obeys: GitHub's runner reads a line whose first
 *     non-blank characters are "::" as a workflow command
 *     (::add-mask::, ::stop-commands::), and "##[command]" anywhere in a
 *     line as an old-style one.  In the tool's own lines (CPL_ESC_RUNNER)
 *     a ':' that would come first on a line is written \x3a and the '['
 *     of "##[" is written \x5b;
 *   - in -o github, GitHub's own escaping on top: command data maps % CR
 *     LF to %25 %0D %0A, property values also : and , to %3A %2C (what
 *     the runner's ActionCommand unescapes); the '[' of "##[" is \x5b
 *     there too, so that no output at all holds "##[".
 *
 * A backslash is left as it is: "\n" in the output is either a newline
 * or those two characters in the input (the output is for reading, and
 * JSON or SARIF hold the exact value); Markdown alone doubles it, since
 * there a backslash would escape what follows.
 *
 * Nothing here prints or allocates but the caller's buffer.
 */
#ifndef CPL_REPORT_ESCAPE_H
#define CPL_REPORT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* How text is escaped: a bit set for cpl_escape(); 0 for a value. */
enum {
	/* The text is whole lines of output (the tool's words and values
	 * already escaped): '\n' ends a line and is kept. */
	CPL_ESC_NL = 1 << 0,
	/* The text starts a line: a ':' first on a line (after blanks)
	 * becomes \x3a and the '[' of "##[" \x5b.  For the tool's own
	 * lines, never for -o github's commands. */
	CPL_ESC_RUNNER = 1 << 1,
	/* With CPL_ESC_RUNNER: colour (ESC '[' digits and ';' 'm', which
	 * values can no longer hold once escaped) is kept. */
	CPL_ESC_SGR = 1 << 2,
	/* A GitHub workflow command's data: % CR LF as %25 %0D %0A. */
	CPL_ESC_GITHUB = 1 << 3,
	/* A property value of one (with CPL_ESC_GITHUB): : and , too. */
	CPL_ESC_GITHUB_PROP = 1 << 4,
	/* XML character data or an attribute value (-o junit): & < > "
	 * ' as entities, and the '[' of "##[" as \x5b. */
	CPL_ESC_XML = 1 << 5,
	/* A Markdown table cell (-o markdown, GitHub-flavoured): HTML's
	 * & < > as entities, '@' as &#64; (no mention pings anyone), the
	 * inline syntax (\ ` * _ [ ] ( ) ~ | ! #) backslash-escaped, and
	 * the '[' of "##[" as \x5b; GitHub's autolinks are broken by an
	 * empty HTML comment (which renders as nothing) after "www", around
	 * the '@' of an e-mail address and after the ':' of "://". */
	CPL_ESC_MARKDOWN = 1 << 6,
};

/* Appends s[0, n) to b escaped as how says (see above). */
void cpl_escape(struct cpl_buf *b, const char *s, size_t n, unsigned how);
/* The same for a string; NULL appends nothing. */
void cpl_escape_str(struct cpl_buf *b, const char *s, unsigned how);
/*
 * Whether s[0, n) is shown as it is (no control, no C1, well-formed
 * UTF-8): what a shell completion may offer, since an escaped name would
 * complete a different word.
 */
bool cpl_escape_plain(const char *s, size_t n);

#endif
