// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the user test runner: runs every test (or those named on the
 * command line) each in a child process and prints TAP and a closing line
 * "N passed, N failed, N skipped".  Exit status 0 when nothing failed.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "tests.h"

int ht_failures;

void ht_skip(const char *why)
{
	/* the child's stdout is a pipe to the parent: first line says skip */
	printf("SKIP %s\n", why);
	fflush(stdout);
	_exit(77);
}

static int selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int n = 0, passed = 0, failed = 0, skipped = 0;
	const struct ht_test *const *table, *t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	for (table = hixl_test_tables; *table; table++)
	for (t = *table; t->name; t++) {
		char buf[4096] = "", skipwhy[512] = "";
		int pfd[2], status;
		ssize_t len, got = 0;
		pid_t pid;

		if (!selected(argc, argv, t->name))
			continue;
		n++;
		if (pipe(pfd) < 0) {
			perror("pipe");
			return 2;
		}
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			close(pfd[0]);
			dup2(pfd[1], STDOUT_FILENO);
			close(pfd[1]);
			setvbuf(stdout, NULL, _IOLBF, 0);
			t->fn();
			fflush(stdout);
			_exit(ht_failures ? 1 : 0);
		}
		close(pfd[1]);
		for (;;) {	/* keep draining past a full buffer: never block the child */
			char chunk[1024];

			len = read(pfd[0], chunk, sizeof(chunk));
			if (len <= 0)
				break;
			if ((size_t)len > sizeof(buf) - 1 - got)
				len = sizeof(buf) - 1 - got;
			memcpy(buf + got, chunk, len);
			got += len;
		}
		buf[got] = 0;
		close(pfd[0]);
		waitpid(pid, &status, 0);

		if (WIFEXITED(status) && WEXITSTATUS(status) == 77 &&
		    sscanf(buf, "SKIP %511[^\n]", skipwhy) == 1) {
			printf("ok %d - %s # SKIP %s\n", n, t->name, skipwhy);
			skipped++;
			continue;
		}
		if (got)
			fputs(buf, stdout);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("ok %d - %s\n", n, t->name);
			passed++;
		} else {
			if (WIFSIGNALED(status))
				printf("#   killed by signal %d\n", WTERMSIG(status));
			printf("not ok %d - %s\n", n, t->name);
			failed++;
		}
	}
	printf("1..%d\n", n);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
