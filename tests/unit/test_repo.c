/*
 * test_repo.c — lib/git/repo.c against throw-away repositories built with the
 * git CLI in a mkdtemp directory.
 *
 * Each test gets its own temp dir holding HOME (a .gitconfig with a user
 * and the file protocol allowed, for submodules), an empty system config
 * directory and the repositories; git's and libgit2's config search paths
 * point there, so the machine's configuration never leaks in.  The
 * fixture restores the cwd and removes the directory; main() removes the
 * parent of all of them, since a failed forked test skips its teardown.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "git/repo.h"
#include "util.h"

#define MAX_ARGS 32

static char base[64];		/* holds every test's dir; main removes it */
static char tmp[256];		/* the test's temp dir, symlink-free */
static char *saved_cwd;

/* tmp joined with rel, in one of a ring of buffers. */
static const char *
at(const char *rel)
{
	static char ring[8][PATH_MAX];
	static int next;
	char *p = ring[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmp, rel);
	return p;
}

/* mkdir -p of the directories leading to (and, if dir, including) p. */
static void
mkdirs(const char *p, bool dir)
{
	char buf[PATH_MAX];
	char *s;

	snprintf(buf, sizeof(buf), "%s", p);
	for (s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST,
			      "mkdir %s: %s", buf, strerror(errno));
		*s = '/';
	}
	if (dir)
		ck_assert(mkdir(buf, 0755) == 0 || errno == EEXIST);
}

/* Writes text to tmp/rel, creating directories. */
static void
put(const char *rel, const char *text)
{
	const char *p = at(rel);
	FILE *f;

	mkdirs(p, false);
	f = fopen(p, "wb");
	ck_assert_msg(f != NULL, "open %s: %s", p, strerror(errno));
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs git -C tmp/dir ARGS... (NULL-terminated); fails the test on error. */
static void
git(const char *dir, ...)
{
	const char *argv[MAX_ARGS];
	char cmd[1024] = "";
	va_list ap;
	pid_t pid;
	int n = 0, status, fd;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = at(dir);
	va_start(ap, dir);
	while (n < MAX_ARGS - 1 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	for (int i = 3; i < n; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
			 argv[i]);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		fd = open(at("git.log"), O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp("git", (char *const *)argv);
		_exit(127);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "git%s failed in %s (see %s)", cmd, dir, at("git.log"));
}

/* A new repository at tmp/dir. */
static void
init(const char *dir)
{
	mkdirs(at(dir), true);
	git(dir, "init", "-q", NULL);
}

/* Stages everything and commits it. */
static void
commit(const char *dir, const char *msg)
{
	git(dir, "add", "-A", NULL);
	git(dir, "commit", "-q", "-m", msg, NULL);
}

/* Opens tmp/dir (or a path below it) and insists it is a repository. */
static struct cpl_repo *
open_ok(const char *path)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r = NULL;
	int rc = cpl_repo_open(&r, path, &err);

	ck_assert_msg(rc == 0, "open %s: %d %s", path, rc,
		      err.message ? err.message : "");
	ck_assert_ptr_nonnull(r);
	return r;
}

/* One field of every file, newline-joined; caller frees. */
static char *
join(const struct cpl_repo_files *f, bool rel)
{
	struct cpl_buf b;
	size_t i;

	cpl_buf_init(&b, 0);
	for (i = 0; i < f->n; i++) {
		if (i > 0)
			cpl_buf_addc(&b, '\n');
		cpl_buf_adds(&b, rel ? f->v[i].rel : f->v[i].path);
	}
	return cpl_buf_detach(&b);
}

/* Walks path and checks the caller-form and rel lists exactly. */
static void
walk_is(struct cpl_repo *r, const char *path, const char *paths,
	const char *rels)
{
	struct cpl_repo_files f = { 0 };
	struct cpl_error err = { 0 };
	char *got;

	ck_assert_msg(cpl_repo_walk(&f, r, path, &err) == 0, "walk %s: %s",
		      path, err.message ? err.message : "");
	got = join(&f, false);
	ck_assert_str_eq(got, paths);
	free(got);
	got = join(&f, true);
	ck_assert_str_eq(got, rels);
	free(got);
	cpl_repo_files_free(&f);
}

/* The staged files under path, rel form, newline-joined; caller frees. */
static char *
staged(struct cpl_repo *r, const char *path, enum cpl_repo_staged which)
{
	struct cpl_repo_files f = { 0 };
	struct cpl_error err = { 0 };
	char *s;

	ck_assert_msg(cpl_repo_staged_files(&f, r, path, which, &err) == 0,
		      "staged %s: %s", path, err.message ? err.message : "");
	s = join(&f, true);
	cpl_repo_files_free(&f);
	return s;
}

/* The staged blob of rel, which must exist; caller frees. */
static char *
blob(struct cpl_repo *r, const char *rel)
{
	struct cpl_error err = { 0 };
	char *data = NULL;
	size_t len = 0;

	ck_assert_msg(cpl_repo_staged_blob(&data, &len, r, rel, 1 << 20,
					   &err) == 0,
		      "blob %s: %s", rel, err.message ? err.message : "");
	ck_assert_uint_eq(len, strlen(data));
	return data;
}

/* The lines 1..n of rel that are changed, as "1,4,5"; caller frees. */
static char *
changed_lines(struct cpl_repo *r, const char *rel, int n)
{
	struct cpl_buf b;
	int i;

	cpl_buf_init(&b, 0);
	for (i = 1; i <= n; i++)
		if (cpl_repo_line_changed(r, rel, i))
			cpl_buf_addf(&b, "%s%d", b.len ? "," : "", i);
	return cpl_buf_detach(&b);
}

/* The changed lines of rel among 1..n are exactly want. */
static void
lines_are(struct cpl_repo *r, const char *rel, int n, const char *want)
{
	char *got = changed_lines(r, rel, n);

	ck_assert_msg(strcmp(got, want) == 0, "%s: changed lines '%s', "
		      "want '%s'", rel, got, want);
	free(got);
}

/* cpl_repo_diff_base() that must succeed. */
static void
diff_ok(struct cpl_repo *r, const char *ref, bool staged_only)
{
	struct cpl_error err = { 0 };

	ck_assert_msg(cpl_repo_diff_base(r, ref, staged_only, &err) == 0,
		      "diff-base %s: %s", ref, err.message ? err.message : "");
}

/* nftw callback: removes one entry, children first. */
static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* A fresh temp dir with an isolated HOME and config search paths. */
static void
setup(void)
{
	char tmpl[128];
	static const char *const unset[] = {
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
		"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
		"GIT_CONFIG_COUNT",
	};
	size_t i;

	char real[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/t-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	ck_assert_uint_lt(strlen(real), sizeof(tmp));
	memcpy(tmp, real, strlen(real) + 1);
	saved_cwd = getcwd(NULL, 0);
	for (i = 0; i < CPL_ARRAY_LEN(unset); i++)
		unsetenv(unset[i]);
	setenv("HOME", at("home"), 1);
	setenv("XDG_CONFIG_HOME", at("home/.config"), 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CEILING_DIRECTORIES", tmp, 1);
	mkdirs(at("nosystem"), true);
	mkdirs(at("home/.config/git"), true);
	put("home/.gitconfig",
	    "[user]\n\tname = Test\n\temail = test@example.com\n"
	    "[init]\n\tdefaultBranch = main\n"
	    "[protocol \"file\"]\n\tallow = always\n"
	    "[advice]\n\tdetachedHead = false\n");
	ck_assert_int_ge(git_libgit2_init(), 1);
	ck_assert_int_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH,
					  GIT_CONFIG_LEVEL_SYSTEM,
					  at("nosystem")), 0);
	ck_assert_int_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH,
					  GIT_CONFIG_LEVEL_GLOBAL,
					  at("home")), 0);
	ck_assert_int_eq(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH,
					  GIT_CONFIG_LEVEL_XDG,
					  at("home/.config/git")), 0);
}

/* Back to the original cwd; the temp dir is removed. */
static void
teardown(void)
{
	git_libgit2_shutdown();
	if (saved_cwd != NULL && chdir(saved_cwd) != 0)
		perror(saved_cwd);
	free(saved_cwd);
	saved_cwd = NULL;
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- discovery -------------------------------------------------------- */

START_TEST(test_not_a_repo)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r = (struct cpl_repo *)1;

	put("plain/sub/a.yaml", "a: 1\n");
	ck_assert_int_eq(cpl_repo_open(&r, at("plain"), &err), 1);
	ck_assert_ptr_null(r);
	ck_assert_ptr_null(err.message);
	ck_assert_int_eq(cpl_repo_open(&r, at("plain/sub/a.yaml"), &err), 1);
	ck_assert_int_eq(cpl_repo_open(&r, at("plain/no/such.yaml"), &err),
			 1);
	ck_assert_ptr_null(r);

	/* A bare repository has no working tree to lint. */
	git("", "init", "-q", "--bare", "bare.git", NULL);
	ck_assert_int_eq(cpl_repo_open(&r, at("bare.git"), &err), 1);
	ck_assert_ptr_null(r);
	ck_assert_ptr_null(err.message);
}
END_TEST

/* Opening finds the root without libgit2 (pre-commit's start-up); the
 * first question that needs libgit2 initialises it, once. */
START_TEST(test_open_lazy)
{
	struct cpl_repo *r;
	int refs;	/* the fixture's references, plus this one */

	init("lazy");
	put("lazy/a/b.yaml", "a: 1\n");
	refs = git_libgit2_init();
	git_libgit2_shutdown();
	r = open_ok(at("lazy/a/b.yaml"));
	ck_assert_str_eq(cpl_repo_root(r), at("lazy"));
	ck_assert_int_eq(git_libgit2_init(), refs);	/* none held */
	git_libgit2_shutdown();
	ck_assert(cpl_repo_head_unborn(r));	/* needs libgit2 */
	ck_assert_int_eq(git_libgit2_init(), refs + 1);
	git_libgit2_shutdown();
	cpl_repo_free(r);
	ck_assert_int_eq(git_libgit2_init(), refs);
	git_libgit2_shutdown();
	/* A .git directory that is no git directory is passed over. */
	mkdirs(at("lazy/a/.git"), true);
	r = open_ok(at("lazy/a/b.yaml"));
	ck_assert_str_eq(cpl_repo_root(r), at("lazy"));
	cpl_repo_free(r);
	/* A .git file (a linked worktree, a submodule) marks a tree. */
	put("lazy/wt/.git", "gitdir: ../.git\n");
	r = open_ok(at("lazy/wt"));
	ck_assert_str_eq(cpl_repo_root(r), at("lazy/wt"));
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_open_root_relpath)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *rel = NULL;

	init("r");
	put("r/sub/a.yaml", "a: 1\n");
	mkdirs(at("r/sub/deeper"), true);
	ck_assert_int_eq(symlink(at("r/sub"), at("link")), 0);
	ck_assert_int_eq(symlink("a.yaml", at("r/sub/l.yaml")), 0);

	r = open_ok(at("r/sub/deeper"));
	ck_assert_str_eq(cpl_repo_root(r), at("r"));
	ck_assert(cpl_repo_head_unborn(r));
	cpl_repo_free(r);
	r = open_ok(at("r/sub/new/dir/x.yaml"));	/* does not exist */
	ck_assert_str_eq(cpl_repo_root(r), at("r"));
	cpl_repo_free(r);
	r = open_ok(at("link/a.yaml"));		/* through a symlink */
	ck_assert_str_eq(cpl_repo_root(r), at("r"));

	ck_assert_int_eq(chdir(at("r/sub")), 0);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "a.yaml", &err), 0);
	ck_assert_str_eq(rel, "sub/a.yaml");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, ".", &err), 0);
	ck_assert_str_eq(rel, "sub");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "..", &err), 0);
	ck_assert_str_eq(rel, "");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "./gone/../a.yaml", &err),
			 0);
	ck_assert_str_eq(rel, "sub/a.yaml");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "new/x.yaml", &err), 0);
	ck_assert_str_eq(rel, "sub/new/x.yaml");
	free(rel);
	/* A symlinked file keeps its own name; a symlinked dir resolves. */
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "l.yaml", &err), 0);
	ck_assert_str_eq(rel, "sub/l.yaml");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, at("link/a.yaml"), &err),
			 0);
	ck_assert_str_eq(rel, "sub/a.yaml");
	free(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, "../..", &err), 1);
	ck_assert_ptr_null(rel);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r, at("rx/a.yaml"), &err), 1);
	ck_assert_ptr_null(rel);
	ck_assert_ptr_null(err.message);
	cpl_repo_free(r);
}
END_TEST

/* ---- walking ---------------------------------------------------------- */

/*
 * tmp/r with tracked, untracked and ignored files (.gitignore,
 * info/exclude and a global core.excludesFile), one tracked file deleted.
 */
static void
ignore_repo(void)
{
	init("r");
	put("r/.gitignore", "*.log\nbuild/\n");
	put("r/a.yaml", "a: 1\n");
	put("r/sub/b.py", "import torch\n");
	put("r/gone.yaml", "g: 1\n");
	commit("r", "base");
	put("r/forced.log", "tracked although ignored\n");
	git("r", "add", "-f", "forced.log", NULL);
	git("r", "commit", "-q", "-m", "forced", NULL);
	ck_assert_int_eq(unlink(at("r/gone.yaml")), 0);

	put("r/c.yaml", "c: 1\n");
	put("r/sub/new/d.yaml", "d: 1\n");
	put("r/debug.log", "ignored by .gitignore\n");
	put("r/build/out.yaml", "ignored directory\n");
	put("r/secret.yaml", "ignored by info/exclude\n");
	put("r/.git/info/exclude", "secret.yaml\n");
	put("r/x.tmp.yaml", "ignored globally\n");
	put("r/sub/e.tmp.yaml", "ignored globally\n");
	put("home/global-ignore", "*.tmp.yaml\n");
	git("r", "config", "--global", "core.excludesFile",
	    at("home/global-ignore"), NULL);
}

START_TEST(test_walk_ignored_untracked)
{
	struct cpl_repo *r;
	const char *want = ".gitignore\na.yaml\nc.yaml\nforced.log\n"
			   "sub/b.py\nsub/new/d.yaml";

	ignore_repo();
	r = open_ok(at("r"));
	ck_assert_int_eq(chdir(at("r")), 0);
	walk_is(r, ".", want, want);
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_walk_caller_forms)
{
	struct cpl_repo_files f = { 0 };
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *got, abs[PATH_MAX * 2];

	ignore_repo();
	r = open_ok(at("r"));
	ck_assert_int_eq(chdir(at("r")), 0);
	walk_is(r, "sub", "sub/b.py\nsub/new/d.yaml",
		"sub/b.py\nsub/new/d.yaml");
	walk_is(r, "./sub/", "./sub/b.py\n./sub/new/d.yaml",
		"sub/b.py\nsub/new/d.yaml");
	walk_is(r, "build", "", "");		/* all ignored */
	walk_is(r, "secret.yaml", "", "");
	ck_assert_int_eq(chdir("sub"), 0);
	walk_is(r, ".", "b.py\nnew/d.yaml", "sub/b.py\nsub/new/d.yaml");
	walk_is(r, "../a.yaml", "../a.yaml", "a.yaml");
	snprintf(abs, sizeof(abs), "%s/new/d.yaml", at("r/sub"));
	walk_is(r, at("r/sub/new"), abs, "sub/new/d.yaml");

	/* Appending keeps the list sorted and each file once. */
	ck_assert_int_eq(cpl_repo_walk(&f, r, "new", &err), 0);
	ck_assert_int_eq(cpl_repo_walk(&f, r, "..", &err), 0);
	got = join(&f, false);
	ck_assert_str_eq(got, "../.gitignore\n../a.yaml\n../c.yaml\n"
			 "../forced.log\n../sub/b.py\nnew/d.yaml");
	free(got);
	cpl_repo_files_free(&f);

	ck_assert_int_eq(cpl_repo_walk(&f, r, at("plain"), &err), 1);
	ck_assert_uint_eq(f.n, 0);
	ck_assert_ptr_null(err.message);
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_walk_submodule_nested_symlinks)
{
	struct cpl_repo *r;
	const char *want = ".gitmodules\na.yaml\nin.yaml\nsub/s.yaml";

	init("other");
	put("other/inner.yaml", "inner: 1\n");
	commit("other", "other");
	init("r");
	put("r/a.yaml", "a: 1\n");
	put("r/sub/s.yaml", "s: 1\n");
	ck_assert_int_eq(symlink("a.yaml", at("r/in.yaml")), 0);
	commit("r", "base");
	git("r", "submodule", "add", "-q", at("other"), "mod", NULL);
	git("r", "commit", "-q", "-m", "submodule", NULL);
	ck_assert_int_eq(access(at("r/mod/inner.yaml"), F_OK), 0);

	init("r/nested");			/* an untracked nested repo */
	put("r/nested/n.yaml", "n: 1\n");
	put("outside.yaml", "o: 1\n");
	ck_assert_int_eq(symlink(at("outside.yaml"), at("r/out.yaml")), 0);
	ck_assert_int_eq(symlink("../outside.yaml", at("r/up.yaml")), 0);
	ck_assert_int_eq(symlink("nope.yaml", at("r/dangling.yaml")), 0);
	ck_assert_int_eq(symlink("sub", at("r/dirlink")), 0);
	ck_assert_int_eq(symlink(".git/config", at("r/gitcfg.yaml")), 0);

	r = open_ok(at("r"));
	ck_assert_int_eq(chdir(at("r")), 0);
	walk_is(r, ".", want, want);
	walk_is(r, "mod", "", "");
	walk_is(r, "nested", "", "");
	walk_is(r, "dirlink", "dirlink/s.yaml", "sub/s.yaml");
	cpl_repo_free(r);
}
END_TEST

/* ---- staged ----------------------------------------------------------- */

START_TEST(test_staged_content_and_lists)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *s, *data = NULL;
	size_t len = 0, wlen = 0;

	init("r");
	put("r/a.yaml", "v: 1\n");
	put("r/keep.yaml", "k: 1\n");
	put("r/gone.yaml", "g: 1\n");
	put("r/sub/z.yaml", "z: 1\n");
	commit("r", "base");
	put("r/a.yaml", "v: 2\n");
	put("r/n.yaml", "n: 1\n");
	put("r/ita.yaml", "i: 1\n");
	git("r", "add", "a.yaml", "n.yaml", NULL);
	git("r", "add", "-N", "ita.yaml", NULL);
	git("r", "rm", "-q", "gone.yaml", NULL);
	ck_assert_int_eq(symlink("a.yaml", at("r/link.yaml")), 0);
	ck_assert_int_eq(symlink("../../x.yaml", at("r/sub/esc.yaml")), 0);
	git("r", "add", "link.yaml", "sub/esc.yaml", NULL);
	put("r/a.yaml", "v: 3 (edited after staging)\n");
	put("r/u.yaml", "u: 1\n");

	r = open_ok(at("r"));
	ck_assert_int_eq(chdir(at("r")), 0);
	s = blob(r, "a.yaml");
	ck_assert_str_eq(s, "v: 2\n");
	free(s);
	ck_assert_int_eq(cpl_read_file(&s, &wlen, at("r/a.yaml"), 1024, &err),
			 0);
	ck_assert_str_eq(s, "v: 3 (edited after staging)\n");
	free(s);
	s = blob(r, "link.yaml");		/* follows the staged link */
	ck_assert_str_eq(s, "v: 2\n");
	free(s);
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "u.yaml",
					      1024, &err), 1);
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "gone.yaml",
					      1024, &err), 1);
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "ita.yaml",
					      1024, &err), 1);
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "sub/esc.yaml",
					      1024, &err), 1);
	ck_assert_ptr_null(data);
	ck_assert_ptr_null(err.message);
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "a.yaml", 4,
					      &err), -1);
	ck_assert_str_eq(err.path, "a.yaml");
	ck_assert_str_eq(err.message,
			 "file is too large (5 bytes; the limit is 4)");
	cpl_error_clear(&err);

	s = staged(r, ".", CPL_REPO_STAGED_CHANGED);
	ck_assert_str_eq(s, "a.yaml\nlink.yaml\nn.yaml");
	free(s);
	s = staged(r, ".", CPL_REPO_STAGED_ALL);
	ck_assert_str_eq(s, "a.yaml\nkeep.yaml\nlink.yaml\nn.yaml\n"
			 "sub/z.yaml");
	free(s);
	s = staged(r, at("r/sub"), CPL_REPO_STAGED_ALL);
	ck_assert_str_eq(s, "sub/z.yaml");
	free(s);
	cpl_repo_free(r);

	/* A binary blob is refused as cpl_read_file() refuses it. */
	put("r/bin.yaml", "x");
	{
		FILE *f = fopen(at("r/bin.yaml"), "ab");

		ck_assert_ptr_nonnull(f);
		fputc('\0', f);
		fclose(f);
	}
	git("r", "add", "bin.yaml", NULL);
	r = open_ok(".");
	ck_assert_int_eq(cpl_repo_staged_blob(&data, &len, r, "bin.yaml",
					      1024, &err), -1);
	ck_assert_str_eq(err.message,
			 "binary file (NUL byte in the first 8 KiB)");
	cpl_error_clear(&err);
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_staged_index_file_env)
{
	struct cpl_repo *r;
	char *s;

	init("r");
	put("r/a.yaml", "v: 1\n");
	commit("r", "base");
	put("r/a.yaml", "v: 2\n");
	git("r", "add", "a.yaml", NULL);
	/* A second index, as "git commit -a" hands a pre-commit hook. */
	setenv("GIT_INDEX_FILE", at("alt-index"), 1);
	git("r", "read-tree", "HEAD", NULL);
	put("r/a.yaml", "v: 3\n");
	git("r", "add", "a.yaml", NULL);
	unsetenv("GIT_INDEX_FILE");
	put("r/a.yaml", "v: 4\n");

	r = open_ok(at("r"));
	s = blob(r, "a.yaml");
	ck_assert_str_eq(s, "v: 2\n");
	free(s);
	cpl_repo_free(r);

	setenv("GIT_INDEX_FILE", at("alt-index"), 1);
	r = open_ok(at("r"));
	s = blob(r, "a.yaml");
	ck_assert_str_eq(s, "v: 3\n");
	free(s);
	cpl_repo_free(r);

	/* GIT_DIR naming another repository: its index is not ours. */
	init("elsewhere");
	setenv("GIT_DIR", at("elsewhere/.git"), 1);
	r = open_ok(at("r"));
	s = blob(r, "a.yaml");
	ck_assert_str_eq(s, "v: 2\n");
	free(s);
	cpl_repo_free(r);
	unsetenv("GIT_DIR");
	unsetenv("GIT_INDEX_FILE");
}
END_TEST

/* ---- diff base -------------------------------------------------------- */

#define TEN "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"

START_TEST(test_diff_base_worktree_and_index)
{
	struct cpl_repo *r;

	init("r");
	put("r/.gitignore", "*.log\n");
	put("r/a.yaml", TEN);
	put("r/keep.yaml", "k1\nk2\n");
	put("r/del.yaml", "d1\nd2\nd3\nd4\nd5\n");
	put("r/f.yaml", "m1\n");
	commit("r", "base");
	git("r", "branch", "feature", NULL);
	put("r/f.yaml", "m2\n");		/* main moves on */
	commit("r", "main moves");
	git("r", "checkout", "-q", "feature", NULL);

	/* Committed on the branch: two lines inserted after l3, a new file. */
	put("r/a.yaml",
	    "l1\nl2\nl3\nins1\nins2\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n");
	put("r/b.yaml", "b1\nb2\nb3\n");
	put("r/del.yaml", "d1\nd3\nd4\nd5\n");
	commit("r", "feature");
	/* In the working tree only: l7 edited, an untracked and an ignored. */
	put("r/a.yaml",
	    "l1\nl2\nl3\nins1\nins2\nl4\nl5\nl6\nL7\nl8\nl9\nl10\n");
	put("r/c.yaml", "c1\nc2\n");
	put("r/i.log", "ignored\n");

	r = open_ok(at("r"));
	ck_assert(!cpl_repo_head_unborn(r));
	/* Before any diff everything counts. */
	ck_assert(cpl_repo_file_changed(r, "keep.yaml"));
	ck_assert(cpl_repo_line_changed(r, "keep.yaml", 1));

	diff_ok(r, "main", false);
	lines_are(r, "a.yaml", 14, "4,5,9");
	lines_are(r, "b.yaml", 3, "1,2,3");
	lines_are(r, "c.yaml", 2, "1,2");
	lines_are(r, "del.yaml", 5, "");
	lines_are(r, "keep.yaml", 2, "");
	lines_are(r, "f.yaml", 1, "");
	ck_assert(cpl_repo_file_changed(r, "a.yaml"));
	ck_assert(cpl_repo_file_changed(r, "b.yaml"));
	ck_assert(cpl_repo_file_changed(r, "c.yaml"));
	ck_assert(cpl_repo_file_changed(r, "del.yaml"));
	ck_assert(!cpl_repo_file_changed(r, "keep.yaml"));
	ck_assert(!cpl_repo_file_changed(r, "f.yaml"));	/* merge base */
	ck_assert(!cpl_repo_file_changed(r, "i.log"));
	ck_assert(!cpl_repo_file_changed(r, "no/such.yaml"));

	/* Against the index: the worktree edit and c.yaml do not count. */
	diff_ok(r, "main", true);
	lines_are(r, "a.yaml", 14, "4,5");
	lines_are(r, "b.yaml", 3, "1,2,3");
	ck_assert(!cpl_repo_file_changed(r, "c.yaml"));
	git("r", "add", "a.yaml", NULL);
	cpl_repo_free(r);
	r = open_ok(at("r"));
	diff_ok(r, "main", true);
	lines_are(r, "a.yaml", 14, "4,5,9");
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_diff_base_renames)
{
	struct cpl_repo *r;

	init("r");
	put("r/r.yaml", "r1\nr2\nr3\nr4\nr5\nr6\n");
	put("r/p.yaml", "p1\np2\np3\np4\np5\np6\n");
	commit("r", "base");
	git("r", "checkout", "-q", "-b", "feature", NULL);
	git("r", "mv", "r.yaml", "moved.yaml", NULL);
	put("r/moved.yaml", "r1\nR2\nr3\nr4\nr5\nr6\n");
	ck_assert_int_eq(rename(at("r/p.yaml"), at("r/q.yaml")), 0);

	r = open_ok(at("r"));
	diff_ok(r, "main", false);
	lines_are(r, "moved.yaml", 6, "2");
	ck_assert(cpl_repo_file_changed(r, "moved.yaml"));
	lines_are(r, "q.yaml", 6, "");		/* untracked, pure move */
	ck_assert(!cpl_repo_file_changed(r, "q.yaml"));
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_unborn_head)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *s, *want;

	init("other");
	put("other/o.yaml", "o: 1\n");
	commit("other", "other");
	init("r");
	put("r/s.yaml", "s1\ns2\n");
	git("r", "add", "s.yaml", NULL);
	put("r/u.yaml", "u1\n");

	r = open_ok(at("r"));
	ck_assert(cpl_repo_head_unborn(r));
	ck_assert_int_eq(chdir(at("r")), 0);
	walk_is(r, ".", "s.yaml\nu.yaml", "s.yaml\nu.yaml");
	s = staged(r, ".", CPL_REPO_STAGED_CHANGED);
	ck_assert_str_eq(s, "s.yaml");
	free(s);
	s = blob(r, "s.yaml");
	ck_assert_str_eq(s, "s1\ns2\n");
	free(s);

	ck_assert_int_eq(cpl_repo_diff_base(r, "HEAD", false, &err), -1);
	want = cpl_xasprintf("'HEAD' does not name a commit in %s", at("r"));
	ck_assert_str_eq(err.message, want);
	free(want);
	cpl_error_clear(&err);
	ck_assert_int_eq(cpl_repo_diff_base(r, "main", true, &err), -1);
	cpl_error_clear(&err);

	/* A REF that resolves: no merge base exists, so everything is new. */
	git("r", "fetch", "-q", at("other"), "main:refs/remotes/origin/main",
	    NULL);
	diff_ok(r, "origin/main", false);
	lines_are(r, "s.yaml", 2, "1,2");
	lines_are(r, "u.yaml", 1, "1");
	ck_assert(cpl_repo_file_changed(r, "u.yaml"));
	ck_assert(!cpl_repo_file_changed(r, "o.yaml"));
	diff_ok(r, "origin/main", true);
	ck_assert(cpl_repo_file_changed(r, "s.yaml"));
	ck_assert(!cpl_repo_file_changed(r, "u.yaml"));
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_bad_ref)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *want;

	init("r");
	put("r/a.yaml", "a\n");
	commit("r", "base");
	git("r", "checkout", "-q", "--orphan", "island", NULL);
	commit("r", "unrelated");
	git("r", "checkout", "-q", "main", NULL);

	r = open_ok(at("r"));
	diff_ok(r, "main", false);
	ck_assert(!cpl_repo_file_changed(r, "a.yaml"));

	ck_assert_int_eq(cpl_repo_diff_base(r, "no-such-branch", false, &err),
			 -1);
	want = cpl_xasprintf("'no-such-branch' does not name a commit in %s",
			     at("r"));
	ck_assert_str_eq(err.message, want);
	free(want);
	ck_assert_ptr_null(err.path);
	cpl_error_clear(&err);

	ck_assert_int_eq(cpl_repo_diff_base(r, "island", false, &err), -1);
	ck_assert_str_eq(err.message,
			 "HEAD and 'island' have no common ancestor");
	cpl_error_clear(&err);

	ck_assert_int_eq(cpl_repo_diff_base(r, "HEAD^{tree}", false, &err),
			 -1);
	ck_assert(cpl_str_starts(err.message,
				 "cannot resolve 'HEAD^{tree}' to a commit: "));
	cpl_error_clear(&err);
	cpl_repo_free(r);
}
END_TEST

START_TEST(test_space_and_non_ascii_paths)
{
	struct cpl_error err = { 0 };
	struct cpl_repo *r;
	char *s, *rel = NULL;
	const char *poly = "dir with space/na\xc3\xafve polyaxonfile.yaml";
	const char *code = "dir with space/\xc3\xbcn\xc3\xaf c\xc3\xb6" "de.py";
	char want[512];

	init("r");
	put("r/dir with space/na\xc3\xafve polyaxonfile.yaml",
	    "version: 1.1\nkind: component\nrun: {}\n");
	commit("r", "base");
	git("r", "checkout", "-q", "-b", "feature", NULL);
	put("r/dir with space/na\xc3\xafve polyaxonfile.yaml",
	    "version: 1.1\nkind: operation\nrun: {}\n");
	git("r", "add", "-A", NULL);
	put("r/dir with space/\xc3\xbcn\xc3\xaf c\xc3\xb6" "de.py",
	    "import torch\n");

	r = open_ok(at("r/dir with space"));
	ck_assert_int_eq(chdir(at("r")), 0);
	snprintf(want, sizeof(want), "%s\n%s", poly, code);
	walk_is(r, "dir with space", want, want);
	ck_assert_int_eq(cpl_repo_relpath(&rel, r,
		"dir with space/./na\xc3\xafve polyaxonfile.yaml", &err), 0);
	ck_assert_str_eq(rel, poly);
	free(rel);
	s = staged(r, "dir with space", CPL_REPO_STAGED_CHANGED);
	ck_assert_str_eq(s, poly);
	free(s);
	s = blob(r, poly);
	ck_assert_str_eq(s, "version: 1.1\nkind: operation\nrun: {}\n");
	free(s);
	diff_ok(r, "main", false);
	lines_are(r, poly, 3, "2");
	lines_are(r, code, 1, "1");
	cpl_repo_free(r);
}
END_TEST

static Suite *
repo_suite(void)
{
	Suite *s = suite_create("repo");
	TCase *tc = tcase_create("repo");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_not_a_repo);
	tcase_add_test(tc, test_open_lazy);
	tcase_add_test(tc, test_open_root_relpath);
	tcase_add_test(tc, test_walk_ignored_untracked);
	tcase_add_test(tc, test_walk_caller_forms);
	tcase_add_test(tc, test_walk_submodule_nested_symlinks);
	tcase_add_test(tc, test_staged_content_and_lists);
	tcase_add_test(tc, test_staged_index_file_env);
	tcase_add_test(tc, test_diff_base_worktree_and_index);
	tcase_add_test(tc, test_diff_base_renames);
	tcase_add_test(tc, test_unborn_head);
	tcase_add_test(tc, test_bad_ref);
	tcase_add_test(tc, test_space_and_non_ascii_paths);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;

	/* A failed test skips its teardown (forked), so clean up here too. */
	snprintf(base, sizeof(base), "/tmp/cpl-repo-XXXXXX");
	if (mkdtemp(base) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	sr = srunner_create(repo_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return failed == 0 ? 0 : 1;
}
